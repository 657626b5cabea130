#!/usr/bin/env python3
"""A real SMTP server (aiosmtpd) for the tests: the SMTP module's, the app's (test-peers.sh) and the browser suite's.

Binds 127.0.0.1 on a free port, writes {"port": N} to OUT/ready.json, and for every accepted
message writes OUT/message-N.eml (raw DATA) and OUT/message-N.json (envelope, whether TLS and
AUTH were in force, and the message as Python's `email` package parses it). AUTH attempts go to
OUT/auth.jsonl (mechanism, success, tls; never the password). Exits when stdin closes (the test
process went away), on SIGTERM, or after --lifetime seconds; with --detached (test-peers.sh, the
scripts) only on SIGTERM.
"""

import argparse
import asyncio
import email
import email.policy
import json
import os
import socket
import ssl
import sys
import threading

from aiosmtpd.smtp import SMTP, AuthResult


def write_json_atomically(path, value):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(value, handle, ensure_ascii=False, indent=1)
    os.replace(temporary, path)


def describe_message(raw):
    message = email.message_from_bytes(raw, policy=email.policy.default)
    headers = {}
    for name, value in message.items():
        headers.setdefault(name.lower(), str(value))

    def addresses(name):
        header = message[name]
        if header is None:
            return []
        return [{"display_name": a.display_name, "addr_spec": a.addr_spec} for a in header.addresses]

    parts = []
    for part in message.walk():
        if part.is_multipart():
            continue
        parts.append({
            "content_type": part.get_content_type(),
            "charset": part.get_content_charset(),
            "transfer_encoding": part.get("Content-Transfer-Encoding", ""),
            "text": part.get_content(),
        })
    defects = [repr(d) for d in message.defects]
    for part in message.walk():
        defects += [repr(d) for d in part.defects]
    lines = raw.split(b"\r\n")
    return {
        "headers": headers,
        "header_names": [name for name, _ in message.items()],
        "from": addresses("From"),
        "to": addresses("To"),
        "content_type": message.get_content_type(),
        "parts": parts,
        "defects": defects,
        "longest_line": max(len(line) for line in lines),
        "bare_line_feeds": raw.replace(b"\r\n", b"").count(b"\n"),
    }


class RecordingHandler:
    def __init__(self, out, implicit_tls):
        self.out = out
        self.implicit_tls = implicit_tls
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        # Addresses that make the sink refuse, to test permanent and transient refusals.
        if address.startswith("reject-permanent@"):
            return "550 5.1.1 No such user here"
        if address.startswith("reject-garbled@"):
            # A relay whose refusal carries control characters (a NUL above all).
            return "550 5.1.1 No such\x00user\x07here"
        if address.startswith("reject-transient@"):
            return "450 4.2.1 Mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        base = os.path.join(self.out, f"message-{self.count}")
        with open(base + ".eml", "wb") as handle:
            handle.write(envelope.content)
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "tls": self.implicit_tls or session.ssl is not None,
            "authenticated_as": session.auth_data.decode() if isinstance(session.auth_data, bytes) else None,
        }
        record.update(describe_message(envelope.content))
        write_json_atomically(base + ".json", record)
        return "250 2.0.0 Message accepted"


class Authenticator:
    def __init__(self, out, user, password, implicit_tls):
        self.path = os.path.join(out, "auth.jsonl")
        self.user = user.encode()
        self.password = password.encode()
        self.implicit_tls = implicit_tls

    def __call__(self, server, session, envelope, mechanism, auth_data):
        success = auth_data.login == self.user and auth_data.password == self.password
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({
                "mechanism": mechanism,
                "success": success,
                "tls": self.implicit_tls or session.ssl is not None,
            }) + "\n")
        if not success:
            # handled=False makes aiosmtpd answer 535 itself.
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True, auth_data=auth_data.login)


class HeloOnlySMTP(SMTP):
    """An old server that knows HELO but not EHLO."""

    async def smtp_EHLO(self, arg):
        await self.push("502 5.5.1 EHLO not implemented")


class Silent(asyncio.Protocol):
    """Accepts connections and never says a word."""

    def connection_made(self, transport):
        self.transport = transport


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--tls", choices=["none", "starttls", "implicit"], default="none")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--mechanisms", default="PLAIN,LOGIN", help="AUTH mechanisms to offer")
    parser.add_argument("--auth-without-tls", action="store_true", help="offer AUTH on plain connections")
    parser.add_argument("--silent", action="store_true", help="accept connections, never answer")
    parser.add_argument("--helo-only", action="store_true", help="answer EHLO with 502")
    parser.add_argument("--unreachable", action="store_true",
                        help="listen but never accept, with the backlog full: connects hang (Linux)")
    parser.add_argument("--lifetime", type=float, default=300)
    parser.add_argument("--detached", action="store_true",
                        help="run until SIGTERM: no stdin watch, no lifetime (a background peer)")
    arguments = parser.parse_args()

    loop = asyncio.get_running_loop()
    if not arguments.detached:
        threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
        loop.call_later(arguments.lifetime, lambda: os._exit(3))

    context = None
    if arguments.tls != "none":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(arguments.cert, arguments.key)

    if arguments.unreachable:
        # With backlog 0 and one connection already queued, Linux drops further SYNs, so a
        # client's connect neither succeeds nor is refused: exactly what a connect timeout is for.
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        filler = socket.create_connection(listener.getsockname())
        write_json_atomically(os.path.join(arguments.out, "ready.json"), {"port": listener.getsockname()[1]})
        await asyncio.Event().wait()
        filler.close()
        return

    implicit = arguments.tls == "implicit"
    if arguments.silent:
        factory = Silent
    else:
        handler = RecordingHandler(arguments.out, implicit)
        authenticator = None
        if arguments.user is not None:
            authenticator = Authenticator(arguments.out, arguments.user, arguments.password, implicit)
        offered = set(arguments.mechanisms.split(","))
        excluded = [m for m in ("PLAIN", "LOGIN") if m not in offered]

        server_class = HeloOnlySMTP if arguments.helo_only else SMTP

        def factory():
            return server_class(
                handler,
                hostname="sink.test",
                loop=loop,
                tls_context=context if arguments.tls == "starttls" else None,
                authenticator=authenticator,
                # Implicit TLS protects AUTH too, but aiosmtpd only knows about STARTTLS.
                auth_require_tls=not (implicit or arguments.auth_without_tls),
                auth_exclude_mechanism=excluded,
            )

    server = await loop.create_server(
        factory, host="127.0.0.1", port=0, ssl=context if implicit else None
    )
    port = server.sockets[0].getsockname()[1]
    write_json_atomically(os.path.join(arguments.out, "ready.json"), {"port": port})
    await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
