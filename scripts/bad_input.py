"""Throws malformed requests at a live Selfie and counts the answers: none may be a 5xx.

Usage: bad_input.py BASE_URL   (E2E_ADMIN_EMAIL / E2E_ADMIN_PASSWORD: an admin to sign in as)
Every path (pages, API, media, admin) × method × body × header variant, with and without a
signed-in session; bodies include random bytes, invalid UTF-8, broken JSON, broken multipart
and oversized forms; headers include bad cookies, Range and Authorization garbage.
Then every parameter of every route (path and query) gets extreme integers, negative numbers,
huge strings and odd encodings, signed in as an admin and as a user, with valid CSRF tokens so
that form posts reach their handlers; the server must answer every one and still be alive.
"""
import os
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
         "/api/login", "/albums", "/albums/nope", "/albums/nope/edit", "/albums/nope/delete", "/links", "/links/nope/revoke",
         "/links/nope/revoke?back=//evil.example", "/photos/selection", "/photos/selection/delete", "/gallery?after=abc",
         "/gallery?after=99999999999999999999_1", "/gallery?after=1_-1", "/s/short", "/s/" + "A" * 32, "/s/" + "A" * 32 + "/photos/x",
         "/s/" + "A" * 32 + "/photos/x/original", "/s/" + "A" * 32 + "/download", "/s/" + "A" * 32 + "?after=%ff",
         "/api/albums", "/api/albums/nope", "/api/albums/nope/photos", "/api/albums/nope?after=x&limit=0", "/api/share_links",
         "/api/share_links/nope"]
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

def signed_in_session(email, password):
    """A cookie header and a CSRF token for a fresh sign-in."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(base + "/signin").read().decode()
    csrf = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
    opener.open(base + "/signin", data=urllib.parse.urlencode({"_csrf": csrf, "email": email, "password": password}).encode())
    page = opener.open(base + "/account").read().decode()
    csrf = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
    return "; ".join(f"{c.name}={c.value}" for c in jar), csrf


extreme = ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "-1", "0",
           "99999999999999999999999999999999", "1e308", "NaN", "0x10", "%201", "1.5", "%00", "%ff%fe", "%c0%af",
           "A" * 10_000, "%E2%80%AE%F0%9F%98%80", "..%2f..%2f", "%25", "1%0d%0aX-Injected:%20y", ""]
# {} is where each extreme value goes, in turn.
parameter_routes = [
    ("GET", "/gallery?before={}"), ("GET", "/photos/{}"), ("GET", "/photos/{}/delete"), ("POST", "/photos/{}/delete"),
    ("POST", "/photos?_csrf={}"), ("GET", "/admin/users?page={}"), ("GET", "/admin/users?page=2&sort={}&q={}"),
    ("GET", "/admin/users/{}"), ("GET", "/admin/users/{}/delete"), ("GET", "/admin/users/1/{}"), ("POST", "/admin/users/{}/disable"),
    ("GET", "/admin/audit?user={}&before={}&type={}"), ("GET", "/admin/api-keys/{}/revoke"), ("POST", "/admin/api-keys/{}/revoke"),
    ("POST", "/account/identities/{}/unlink"), ("POST", "/account/link/{}"), ("POST", "/auth/{}/start"),
    ("GET", "/auth/google/callback?code={}&state={}"), ("GET", "/auth/{}/callback?error={}"), ("GET", "/media/{}?expires={}&sig={}"),
    ("GET", "/signin?next={}&notice={}"), ("GET", "/account?notice={}"), ("GET", "/api/get_token?email={}&password={}"),
    ("DELETE", "/api/delete_photo?photo_id={}"), ("GET", "/assets/{}"),
]
sessions = [("user", *signed_in_session(email, "fuzz password 1"))]
if os.environ.get("E2E_ADMIN_EMAIL"):
    sessions.append(("admin", *signed_in_session(os.environ["E2E_ADMIN_EMAIL"], os.environ["E2E_ADMIN_PASSWORD"])))
parameter_requests = 0
for (who, cookie, csrf), (method, template), value in itertools.product(sessions, parameter_routes, extreme):
    path = template.replace("{}", value)
    request_headers = {"Cookie": cookie, "X-CSRF-Token": csrf}
    body = None
    if method == "POST":
        body = urllib.parse.urlencode({"_csrf": csrf}).encode()
        request_headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection = http.client.HTTPConnection(host, port, timeout=15)
    try:
        connection.request(method, path, body=body, headers=request_headers)
        status = connection.getresponse().status
    except Exception as error:
        status = f"closed ({type(error).__name__})"
    finally:
        connection.close()
    parameter_requests += 1
    counts[status] = counts.get(status, 0) + 1
    if not isinstance(status, int) or status >= 500:
        server_errors.append(f"{method} {path[:120]} [as {who}] -> {status}")
print(f"parameter fuzz: {parameter_requests} requests as {', '.join(who for who, _, _ in sessions)}")
alive = urllib.request.urlopen(base + "/healthz", timeout=5).status
if alive != 200:
    server_errors.append(f"/healthz answered {alive} after the run")

total = sum(counts.values())
print(f"bad-input run: {total} requests, answers {dict(sorted(counts.items(), key=str))}")
print(f"5xx answers: {len(server_errors)}")
for line in server_errors[:20]:
    print("  " + line)
sys.exit(1 if server_errors else 0)
