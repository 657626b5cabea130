"""Schemathesis hooks for the tus endpoints (`SCHEMATHESIS_HOOKS=tus_hooks`): PATCH bodies are raw
bytes (application/offset+octet-stream), which schemathesis cannot make from a schema by itself."""
from hypothesis import strategies as st

import schemathesis

schemathesis.openapi.media_type("application/offset+octet-stream", st.binary(max_size=4096))
