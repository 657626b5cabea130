#!/usr/bin/env python3
"""Records real browser ceremonies for the WebAuthn tests: headless Chromium (Debian's chromium +
chromedriver, selenium) with a CTAP2 virtual authenticator runs navigator.credentials.create() and
.get() on a page served from localhost, and the results are written as JSON.

Usage: chromium_ceremonies.py OUTPUT.json
Challenges are fixed (create: bytes 0..31, get: bytes 32..63) so the Swift test knows them; the
origin (a free port picked now) is recorded in the output. Ceremonies: ES256 and RS256 passkeys
with attestation "none", plus ES256 with attestation "direct" (a real "packed" + x5c statement).
"""
import http.server
import json
import sys
import threading

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>webauthn fixture</title><p>ok</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


CEREMONY_JS = """
const [alg, attestation, done] = arguments;
const b64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
const bytes = (from) => Uint8Array.from({length: 32}, (_, i) => from + i);
(async () => {
  const userId = crypto.getRandomValues(new Uint8Array(16));
  const created = await navigator.credentials.create({publicKey: {
    challenge: bytes(0), rp: {id: "localhost", name: "Selfie"},
    user: {id: userId, name: "alice", displayName: "Alice"},
    pubKeyCredParams: [{type: "public-key", alg}], attestation,
    authenticatorSelection: {residentKey: "required", userVerification: "required"},
  }});
  const got = await navigator.credentials.get({publicKey: {
    challenge: bytes(32), rpId: "localhost", userVerification: "required",
  }});
  done({
    alg, attestation, origin: location.origin,
    credentialId: b64url(created.rawId), userHandle: b64url(userId),
    transports: created.response.getTransports(),
    registration: {
      clientDataJSON: b64url(created.response.clientDataJSON),
      attestationObject: b64url(created.response.attestationObject),
    },
    assertion: {
      credentialId: b64url(got.rawId),
      clientDataJSON: b64url(got.response.clientDataJSON),
      authenticatorData: b64url(got.response.authenticatorData),
      signature: b64url(got.response.signature),
      userHandle: got.response.userHandle ? b64url(got.response.userHandle) : null,
    },
  });
})().catch((e) => done({error: String(e)}));
"""


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
    results = []
    try:
        driver.get(f"http://localhost:{port}/")
        driver.set_script_timeout(20)
        for alg, attestation in ((-7, "none"), (-257, "none"), (-7, "direct")):
            # A fresh authenticator per ceremony, so get() finds exactly the credential just made.
            authenticator = VirtualAuthenticatorOptions()
            authenticator.protocol = Protocol.CTAP2
            authenticator.transport = Transport.INTERNAL
            authenticator.has_resident_key = True
            authenticator.has_user_verification = True
            authenticator.is_user_verified = True
            driver.add_virtual_authenticator(authenticator)
            result = driver.execute_async_script(CEREMONY_JS, alg, attestation)
            driver.remove_virtual_authenticator()
            if "error" in result:
                raise SystemExit(f"alg {alg} attestation {attestation}: {result['error']}")
            result["browser"] = driver.capabilities.get("browserVersion")
            results.append(result)
    finally:
        driver.quit()
        server.shutdown()
    with open(sys.argv[1], "w") as output:
        json.dump(results, output, indent=1)
        output.write("\n")


if __name__ == "__main__":
    main()
