"""Throws malformed requests at a live Selfie and counts the answers: none may be a 5xx.

Usage: bad_input.py BASE_URL
Every path (pages, API, media, admin) × method × body × header variant, with and without a
signed-in session; bodies include random bytes, invalid UTF-8, broken JSON, broken multipart
and oversized forms; headers include bad cookies, Range and Authorization garbage.
"""
import http.client
import itertools
import random
import re
import sys
import urllib.parse
import urllib.request
import http.cookiejar

base = sys.argv[1]
host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port
random.seed(2026)

# A signed-in session to send half of the requests with.
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
token = re.search(r'name="_csrf" value="([^"]+)"', opener.open(base + "/signup").read().decode()).group(1)
email = f"fuzz{random.randint(0, 10**9)}@example.com"
form = urllib.parse.urlencode({"_csrf": token, "full_name": "Fuzz", "email": email, "password": "fuzz password 1",
                               "password_confirmation": "fuzz password 1"}).encode()
opener.open(base + "/signup", data=form)
session_cookie = "; ".join(f"{c.name}={c.value}" for c in jar)

paths = ["/", "/signin", "/signup", "/signout", "/account", "/account/password", "/account/sessions/end-others",
         "/gallery", "/gallery?before=abc", "/gallery?before=-1", "/photos/new", "/photos", "/photos/nope",
         "/photos/nope/delete", "/photos/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/media/x", "/media/" + "A" * 32 + ".jpg?expires=1&sig=x",
         "/media/../../etc/passwd", "/admin", "/admin/users?page=-5&sort=zzz&q=%25%27", "/admin/users/abc/delete",
         "/admin/audit?user=x&type=y&before=z", "/api/signin", "/api/signup", "/api/get_token?email=%00&password=%ff",
         "/api/upload_photo", "/api/delete_photo", "/api/get_photos", "/api/reset_password", "/api/clear_token", "/healthz",
         "/assets/css/app.css", "/assets/../Package.swift", "/%ff%fe", "/signin?next=%0d%0aSet-Cookie:x=y",
         "/auth/google/start", "/auth/google/callback?code=x&state=y", "/auth/google/callback?error=access_denied",
         "/auth/nope/start", "/auth/%ff/callback", "/account/link/google", "/account/link/nope",
         "/account/identities/abc/unlink", "/account/identities/1/unlink", "/api/social/signin", "/api/register",
         "/api/login"]
methods = ["GET", "POST", "PUT", "DELETE", "PATCH"]
bodies = {
    "empty": (b"", None),
    "random": (bytes(random.getrandbits(8) for _ in range(3000)), "application/octet-stream"),
    "bad utf8 form": (b"_csrf=\xff\xfe&email=\xc3\x28&password=%ZZ", "application/x-www-form-urlencoded"),
    "big form": (b"email=" + b"a" * 200_000, "application/x-www-form-urlencoded"),
    "broken json": (b'{"email": "a@b.c", "password": ', "application/json"),
    "json array": (b"[1, 2, 3]", "application/json"),
    "json nulls": (b'{"email": null, "password": null, "photo_id": null, "full_name": 7}', "application/json"),
    "bad multipart": (b"--x\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nnot an image", "multipart/form-data; boundary=y"),
    "no boundary": (b"--x\r\n\r\n", "multipart/form-data"),
}
header_sets = {
    "none": {},
    "garbage auth": {"Authorization": "Token token=\"unterminated", "Range": "bytes=9-1,zz", "Cookie": "selfie_session=%%%; selfie_visitor=;;"},
    "basic garbage": {"Authorization": "Basic ###", "X-CSRF-Token": "x" * 5000, "If-None-Match": "*"},
}

counts, server_errors = {}, []
for path, method, (body_name, (body, content_type)), (headers_name, headers), signed_in in itertools.product(
        paths, methods, bodies.items(), header_sets.items(), (False, True)):
    if method == "GET" and body_name not in ("empty", "random"):
        continue
    request_headers = dict(headers)
    if content_type:
        request_headers["Content-Type"] = content_type
    if signed_in:
        request_headers["Cookie"] = session_cookie
    connection = http.client.HTTPConnection(host, port, timeout=15)
    try:
        connection.request(method, path, body=body or None, headers=request_headers)
        status = connection.getresponse().status
    except Exception as error:  # a closed connection after a refused oversize body is fine
        status = f"closed ({type(error).__name__})"
    finally:
        connection.close()
    counts[status] = counts.get(status, 0) + 1
    if isinstance(status, int) and status >= 500:
        server_errors.append(f"{method} {path} [{body_name}, {headers_name}, signed in: {signed_in}] -> {status}")

total = sum(counts.values())
print(f"bad-input run: {total} requests, answers {dict(sorted(counts.items(), key=str))}")
print(f"5xx answers: {len(server_errors)}")
for line in server_errors[:20]:
    print("  " + line)
sys.exit(1 if server_errors else 0)
