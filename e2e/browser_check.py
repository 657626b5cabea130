"""Drives Selfie's browser pages in headless Chromium, as a person would, and saves screenshots.

Usage: browser_check.py BASE_URL SCREENSHOT_DIR
Checks: sign up ("check your mail"), sign in with the confirmation banner, empty gallery, upload a
JPEG with a caption (progress bar), see it in the gallery, open it, delete it behind the
confirmation, gallery empty again; the confirmation link from the mail (the banner goes); sign
out, sign in, account page with the session listed, password change (and that the new password
works); a forgotten password reset through the mailed link (another device signed out, the old
password refused); an admin at work; "Continue with Google" against a fake provider (consent page,
back signed in, the account page listing the link); phone photos; "Download my data" (the ZIP's
contents) and deleting the account from its page (goodbye mail, signed out); two-step verification
(the QR code read back with zbarimg, codes computed here per RFC 6238, the code step at sign-in, a
recovery code working once); passkeys through Chromium's virtual authenticator (added on the account
page, then signing in with no password and no code); no console errors and every form control
labelled on each page. Then sharing and organising (issue 22), at desktop size: ten JPEGs chosen at
once, each with its progress and "Uploaded", and a file that is no photo refused on its own; month
groups (EXIF dates written with exiftool); Space and Shift+click in the grid's selection; a new
album from the selection; a one-day link with a password, opened in a second browser with no
cookies (wrong password, then right; X-Robots-Tag and Referrer-Policy; every image it serves read
with exiftool: no GPS, capture time, camera, XMP or IPTC; no owner's email or file name in the page;
no original); the viewer's arrow keys; the link turned off (404 for page and images); a selection's
originals as a ZIP, byte for byte, and a selection deleted; axe-core (the axe-core-python package's
axe.min.js) on every new page. The installed app: installable by Chromium's own checks (CDP), two
JPEGs shared into it (signed in, and signed out through the sign-in) ready on the upload form and
uploaded, the service worker's caches holding no page, API answer or photo, the offline page. The server's PUBLIC_URL is http://localhost:PORT: WebAuthn needs a
host name. Mail is read from the SMTP server's folder (E2E_SMTP_MESSAGES, scripts/smtp_sink.py).
"""
import base64
import glob
import hashlib
import hmac
import io
import json
import struct
import time
import zipfile
import http.cookiejar
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid

import axe_core_python
from PIL import Image, ImageDraw

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

base, shots = sys.argv[1], sys.argv[2]
os.makedirs(shots, exist_ok=True)

browsers = []  # every Chromium started here, quit at the end


def new_browser(width, height, page_load_strategy="normal"):
    """A headless Chromium with a profile of its own (no cookies), its console log kept.
    `page_load_strategy` "none": commands do not wait for a page that is still loading."""
    options = webdriver.ChromeOptions()
    options.page_load_strategy = page_load_strategy
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Debian's chromium and its driver, named explicitly so selenium never tries to download one.
    options.binary_location = "/usr/bin/chromium"
    browser = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
    browsers.append(browser)
    browser.implicitly_wait(5)
    return browser


driver = new_browser(420, 900)
downloads = os.path.abspath(os.path.join(shots, "downloads"))
os.makedirs(downloads, exist_ok=True)
driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
mailbox = os.environ["E2E_SMTP_MESSAGES"]
read_mail = set()
passed = failed = 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}")


def shot(name, browser=None, full_page=False):
    """A screenshot of the window, or with `full_page` of the whole page however long."""
    browser = browser or driver
    path = os.path.join(shots, f"{name}.png")
    if full_page:
        size = browser.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        picture = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": {
            "x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
        with open(path, "wb") as file:
            file.write(base64.b64decode(picture["data"]))
    else:
        browser.save_screenshot(path)
    print(f"     screenshot {path}")


def fill(fields, browser=None):
    for name, value in fields.items():
        element = (browser or driver).find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)


def is_gone(element):
    """True once `element` has left the document. Chromium reports that either as a stale element
    or, mid-navigation, as "node does not belong to the document": both mean the page was replaced."""
    try:
        element.is_enabled()
        return False
    except WebDriverException:
        return True


def click_and_wait(selector, browser=None):
    """Clicks a submit button and waits until the next page has replaced this one."""
    browser = browser or driver
    page = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.CSS_SELECTOR, selector).click()
    WebDriverWait(browser, 10).until(lambda _: is_gone(page))
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def submit(browser=None):
    """Submits the page's form (not the "send it again" form of the confirmation banner)."""
    click_and_wait("main form:not(.banner form) button[type=submit]", browser)


def check_page_hygiene(page, browser=None, allow=()):
    """No console errors and every form control labelled; `allow`: more statuses that this page
    answers on purpose (an upload refused with 415)."""
    browser = browser or driver
    # A form re-rendered with its errors answers 401/422 on purpose, and a used mail link 410;
    # Chromium logs that document load as a failed resource. Anything else at SEVERE level is a real error.
    errors = [
        e for e in browser.get_log("browser")
        if e["level"] == "SEVERE" and not (e["source"] == "network" and any(f" {s} " in e["message"] for s in (401, 410, 422, *allow)))
    ]
    check(not errors, f"{page}: no console errors {errors if errors else ''}")
    # (An input with the `hidden` attribute is the username hint for password managers, never shown.)
    unlabeled = browser.execute_script(
        """return [...document.querySelectorAll('input:not([type=hidden]):not([hidden]), select, textarea')]
             .filter(el => !(el.id && document.querySelector(`label[for="${el.id}"]`)) && !el.closest('label'))
             .map(el => el.name)"""
    )
    check(not unlabeled, f"{page}: every form control has a label {unlabeled if unlabeled else ''}")


def make_phone_photos(folder):
    """What phones save: a JPEG stored sideways with EXIF Orientation 6, and a HEIC."""
    sideways = os.path.join(folder, "sideways.jpg")
    image = Image.new("RGB", (1200, 800), (70, 130, 200))
    ImageDraw.Draw(image).rectangle((0, 0, 599, 399), fill=(230, 20, 20))
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display": upright it is portrait
    image.save(sideways, "JPEG", quality=90, exif=exif.tobytes())
    source = os.path.join(folder, "heic-source.jpg")
    make_jpeg(source, size=(1200, 800))
    heic = os.path.join(folder, "phone.heic")
    subprocess.run(["heif-enc", "-q", "80", "-o", heic, source], check=True, stdout=subprocess.DEVNULL)
    return os.path.abspath(sideways), os.path.abspath(heic)


def make_jpeg(path, sun=(255, 210, 80), size=(640, 480)):
    """A real JPEG: a sky-to-sand gradient with a sun, so the screenshots show something."""
    width, height = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    for y in range(height):
        draw.line([(0, y), (width, y)], fill=(40 + y * 120 // height, 120 + y * 80 // height, 220 - y * 160 // height))
    draw.ellipse([width * 2 // 3, height // 8, width * 2 // 3 + width // 5, height // 8 + width // 5], fill=sun)
    image.save(path, "JPEG", quality=85)


def upload_files(paths, caption=None, timeout=60):
    """On the upload page: chooses `paths` at once (for the page's script, the same as a drop),
    types the caption, presses Upload and waits for the summary. Returns the summary's text and,
    per file in the list's order, every status it showed (recorded as it changed)."""
    driver.find_element(By.ID, "image").send_keys("\n".join(paths))
    if caption:
        driver.find_element(By.ID, "title").send_keys(caption)
    driver.execute_script("""
        const statuses = [...document.querySelectorAll('#upload-list .upload-status')];
        window.e2eStatuses = statuses.map(s => [s.textContent]);
        new MutationObserver(records => records.forEach(r => {
            const i = statuses.indexOf(r.target);
            if (i >= 0) r.addedNodes.forEach(n => { if (n.nodeType === Node.TEXT_NODE) window.e2eStatuses[i].push(n.data); });
        })).observe(document.getElementById('upload-list'), {childList: true, subtree: true});""")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(driver, timeout).until(lambda d: d.execute_script(
        "const s = document.getElementById('upload-summary'); return s && !s.hidden && s.textContent.length > 0"))
    return driver.find_element(By.ID, "upload-summary").text, driver.execute_script("return window.e2eStatuses")


def wait_for_mail(to, subject):
    """The next message, not read before, that the SMTP server accepted for `to` with `subject` in
    its subject; returns (the text part, the first link in it)."""
    deadline = time.time() + 15
    while time.time() < deadline:
        for path in sorted(glob.glob(os.path.join(mailbox, "message-*.json"))):
            if path in read_mail:
                continue
            message = json.load(open(path))
            if to in message["rcpt_tos"] and subject in message["headers"]["subject"]:
                read_mail.add(path)
                text = next(p["text"] for p in message["parts"] if p["content_type"] == "text/plain")
                link = re.search(r"https?://\S+", text)
                return text, link.group(0) if link else None
        time.sleep(0.2)
    raise AssertionError(f"no mail to {to} about {subject!r} within 15 s")


def totp(secret, offset=0):
    """RFC 6238 (SHA-1, 30 s, 6 digits) as authenticator apps compute it; `offset` steps from now."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(time.time()) // 30 + offset), hashlib.sha1).digest()
    start = mac[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", mac[start:start + 4])[0] & 0x7FFFFFFF) % 1_000_000)


def sign_in(email, password):
    driver.delete_all_cookies()
    driver.get(base + "/signin")
    fill({"email": email, "password": password})
    submit()


class OtherDevice:
    """A second signed-in browser, kept with plain HTTP and a cookie jar."""

    def __init__(self, email, password):
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self.opener.open(base + "/signin").read().decode()
        token = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode({"_csrf": token, "email": email, "password": password}).encode()
        self.opener.open(base + "/signin", data=form)

    def is_signed_in(self):
        return self.opener.open(base + "/account").geturl().endswith("/account")


AXE_SCRIPT = open(os.path.join(os.path.dirname(axe_core_python.__file__), "axe.min.js")).read()


def check_accessibility(page, browser=None):
    """axe-core (from the axe-core-python package) on the page as it is now: no violation of any
    rule. Injected through WebDriver, which the page's Content-Security-Policy does not govern.
    One exception: this axe-core's autocomplete-valid predates the HTML standard's `webauthn`
    token, which the sign-in field carries for passkey autofill ("username webauthn" is valid
    HTML); that field is checked by hand below instead."""
    browser = browser or driver
    browser.execute_script(AXE_SCRIPT)
    webauthn_fields = browser.execute_script(
        "return [...document.querySelectorAll('input[autocomplete]')].filter(i => /\\bwebauthn\\b/.test(i.autocomplete)).map(i => i.autocomplete)")
    check(all(field == "username webauthn" for field in webauthn_fields), f"{page}: a webauthn autocomplete is exactly “username webauthn” {webauthn_fields}")
    result = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const options = {resultTypes: ['violations']};
        if (document.querySelector('input[autocomplete~=webauthn]')) {
            options.rules = {'autocomplete-valid': {enabled: false}};
        }
        axe.run(document, options).then(
            r => done({passed: r.passes.length, violations: r.violations.map(v => ({
                rule: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map(n => n.target.join(' '))}))}),
            e => done({passed: 0, violations: [{rule: 'axe failed to run', help: String(e)}]}));""")
    violations = result["violations"]
    check(result["passed"] > 0 and not violations,
          f"{page}: axe-core finds no accessibility violation ({result['passed']} rules passed) {violations if violations else ''}")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def cookie_header(browser):
    """The cookies `browser` sends to the page it shows (a share link's proof is scoped to its path)."""
    return "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())


def http_get(url, cookie=None, follow=True):
    """A raw GET with a browser's cookies: (status, headers, body), whatever the status."""
    request = urllib.request.Request(url)
    if cookie:
        request.add_header("Cookie", cookie)
    opener = urllib.request.build_opener() if follow else urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=15) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def camera_metadata(paths):
    """Per file, what exiftool finds in it that a camera or an editor wrote: where (GPS), when
    (DateTimeOriginal and friends), with what (Make, Model, Software), XMP and IPTC."""
    found = subprocess.run(["exiftool", "-j", "-G", "-a", *paths], capture_output=True, text=True).stdout
    telling = ("DateTimeOriginal", "CreateDate", "OffsetTimeOriginal", "Make", "Model", "Software")
    return {
        os.path.basename(entry["SourceFile"]): sorted(
            key for key in entry
            if "GPS" in key or key.split(":")[0] in ("XMP", "IPTC") or key.split(":")[-1] in telling)
        for entry in json.loads(found or "[]")
    }


def make_walk_photos(folder):
    """Ten JPEGs of different colours; the last three taken in May 2019 (the 3rd, 2nd, 1st, so the
    gallery shows them in file order) and carrying what a camera writes: GPS, make and model,
    firmware, XMP and IPTC."""
    colours = [(200, 40, 40), (230, 120, 30), (215, 190, 40), (60, 160, 60), (40, 150, 160),
               (40, 80, 200), (120, 60, 190), (200, 60, 150), (120, 85, 50), (90, 90, 90)]
    paths = []
    for number, colour in enumerate(colours, 1):
        path = os.path.abspath(os.path.join(folder, f"hedy-walk-{number:02d}.jpg"))
        image = Image.new("RGB", (800, 600), colour)
        draw = ImageDraw.Draw(image)
        draw.ellipse([60 + number * 50, 150, 260 + number * 50, 350], fill=(250, 250, 245))
        draw.rectangle([0, 480, 800, 600], fill=tuple(c // 2 for c in colour))
        image.save(path, "JPEG", quality=85)
        paths.append(path)
    for day, path in zip((3, 2, 1), paths[7:]):
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-DateTimeOriginal=2019:05:0{day} 10:00:00",
                        "-GPSLatitude=48.8583", "-GPSLatitudeRef=N", "-GPSLongitude=2.2944", "-GPSLongitudeRef=E",
                        "-Make=Canon", "-Model=Canon EOS 5D", "-Software=Firmware 1.1.1",
                        "-XMP-dc:Creator=Hedy Lamarr", "-IPTC:Keywords=secret beach", path], check=True)
    return paths


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def grid_cards(browser=None):
    """The grid's photos in page order: id, link, month heading, whether selected."""
    return (browser or driver).execute_script("""return [...document.querySelectorAll('.gallery > li')].map(li => {
        const box = li.querySelector('input.select-photo');
        return {id: box ? box.value : null, href: li.querySelector('a').getAttribute('href'), checked: !!box && box.checked,
                caption: li.querySelector('.caption').textContent, month: li.closest('section.month').querySelector('h2').textContent};
    })""")


def wait_for_visible_images(browser=None):
    """Until every image in view has loaded (lazy ones below the fold need not)."""
    WebDriverWait(browser or driver, 15).until(lambda d: d.execute_script("""return [...document.images]
        .filter(i => i.getBoundingClientRect().top < innerHeight).every(i => i.complete && i.naturalWidth > 0)"""))


def press(key, browser):
    """A key pressed on the page, and the next page once it has replaced this one."""
    page = browser.find_element(By.TAG_NAME, "html")
    ActionChains(browser).send_keys(key).perform()
    WebDriverWait(browser, 10).until(lambda _: is_gone(page))
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def make_large_jpeg(path, megabytes):
    """A real JPEG padded to `megabytes` with comment segments of random bytes: a large upload
    whose renditions are still quick."""
    make_jpeg(path, sun=(250, 120, 60))
    jpeg = open(path, "rb").read()
    padding = b"".join(b"\xff\xfe" + (65535).to_bytes(2, "big") + os.urandom(65533) for _ in range(megabytes * 16))
    with open(path, "wb") as out:
        out.write(jpeg[:2] + padding + jpeg[2:])
    return os.path.abspath(path)


def upload_progress(browser=None):
    return (browser or driver).execute_script("const p = document.querySelector('#upload-list progress'); return p ? p.value : -1")


def check_resumable_upload():
    """Issue 24 as a person on a train sees it: a 16 MB photo goes up through the resumable upload
    API (tus, 5 MiB at a time) over a slow link; half-way the network drops (CDP: offline) — the
    file's line says it will try again — and comes back: the upload finishes on its own and the photo
    is in the gallery. Then the pause button stops one where it is and Resume carries it on."""
    driver.get(base + "/photos/new")
    big = make_large_jpeg(os.path.join(shots, "large-upload.jpg"), 16)
    driver.execute_cdp_cmd("Network.enable", {})
    slow = {"offline": False, "latency": 20, "downloadThroughput": 8 * 1024 * 1024, "uploadThroughput": 3 * 1024 * 1024}
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", slow)
    driver.find_element(By.ID, "image").send_keys(big)
    driver.find_element(By.ID, "title").send_keys("Uploaded on a train")
    driver.execute_script("""
        window.e2eSeen = [];
        new MutationObserver(() => {
            const s = document.querySelector('#upload-list .upload-status');
            if (s && window.e2eSeen[window.e2eSeen.length - 1] !== s.textContent) window.e2eSeen.push(s.textContent);
        }).observe(document.getElementById('upload-list'), {childList: true, subtree: true, characterData: true});""")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(driver, 60).until(lambda d: upload_progress(d) >= 40)
    dropped_at = upload_progress()
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {**slow, "offline": True})
    WebDriverWait(driver, 30).until(lambda d: "Connection lost" in d.find_element(By.CSS_SELECTOR, "#upload-list .upload-status").text)
    shot("50-upload-connection-lost")
    time.sleep(3)
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", slow)
    WebDriverWait(driver, 120).until(lambda d: d.execute_script(
        "const s = document.getElementById('upload-summary'); return s && !s.hidden && s.textContent.length > 0"))
    seen = driver.execute_script("return window.e2eSeen")
    summary = driver.find_element(By.ID, "upload-summary").text
    check(any(text.startswith("Connection lost") for text in seen), f"the network dropped at {dropped_at} %: the line said it would try again")
    check(summary.startswith("1 photo uploaded."), f"the upload finished on its own once the network was back ({summary!r}, {seen[-3:]})")
    shot("51-upload-resumed-done")
    driver.get_log("browser")  # the requests that failed while offline are logged as errors, rightly
    driver.find_element(By.LINK_TEXT, "See them in your gallery").click()
    check("Uploaded on a train" in driver.page_source, "the photo uploaded across the drop is in the gallery")

    # Pause and resume by hand.
    driver.get(base + "/photos/new")
    driver.find_element(By.ID, "image").send_keys(big)
    driver.find_element(By.ID, "title").send_keys("Paused once")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(driver, 60).until(lambda d: upload_progress(d) >= 20)
    driver.find_element(By.CSS_SELECTOR, "#upload-list .upload-pause").click()
    paused_at = upload_progress()
    status = driver.find_element(By.CSS_SELECTOR, "#upload-list .upload-status").text
    time.sleep(2)
    check(status.startswith("Paused at") and upload_progress() == paused_at, f"Pause stops the upload where it is ({status!r})")
    check_accessibility("upload paused")
    shot("52-upload-paused")
    driver.find_element(By.CSS_SELECTOR, "#upload-list .upload-pause").click()
    WebDriverWait(driver, 120).until(lambda d: d.execute_script(
        "const s = document.getElementById('upload-summary'); return s && !s.hidden && s.textContent.length > 0"))
    check(driver.find_element(By.ID, "upload-summary").text.startswith("1 photo uploaded."), "Resume carries it on to the end")
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {**slow, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    check_page_hygiene("upload paused and resumed")

    # The server asks to wait: the account's uploads at once (three) are held by three slow form
    # uploads from elsewhere, so the PATCH is answered 429. The line says Selfie is busy, not that
    # the connection was lost, and the upload goes on by itself once they end.
    driver.get(base + "/photos/new")
    token = driver.find_element(By.ID, "upload-form").get_attribute("data-csrf")
    holders = [hold_upload_slot(cookie_header(driver), token) for _ in range(3)]
    check(eventually(lambda: upload_is_refused_busy(cookie_header(driver), token)), "three slow uploads hold the account's upload slots")
    busy = os.path.abspath(os.path.join(shots, "busy-upload.jpg"))
    make_jpeg(busy, sun=(90, 200, 140))
    driver.find_element(By.ID, "image").send_keys(busy)
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    line = "#upload-list .upload-status"
    WebDriverWait(driver, 30).until(lambda d: "again in" in d.find_element(By.CSS_SELECTOR, line).text)
    waiting = driver.find_element(By.CSS_SELECTOR, line).text
    for holder in holders:
        holder.close()
    WebDriverWait(driver, 60).until(lambda d: d.find_element(By.ID, "upload-summary").text)
    check(waiting.startswith("Selfie is busy: trying again in") and "Connection" not in waiting,
          f"a server that asks to wait is said to be busy, not a lost connection ({waiting!r})")
    check(driver.find_element(By.ID, "upload-summary").text.startswith("1 photo uploaded."), "once it has room, the upload goes on by itself")
    driver.get_log("browser")  # the 429s are logged as failed requests, rightly


def hold_upload_slot(cookie, token):
    """A form upload from another device that sends its head and the start of its photo, then
    nothing: it holds one of the account's upload slots until its socket is closed."""
    host, port = re.match(r"https?://([^:/]+):(\d+)", base).groups()
    holder = socket.create_connection((host, int(port)))
    part = b'--e2e\r\nContent-Disposition: form-data; name="image"; filename="slow.jpg"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\xff'
    head = (f"POST /photos?_csrf={urllib.parse.quote(token)} HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: {cookie}\r\n"
            f"Content-Type: multipart/form-data; boundary=e2e\r\nContent-Length: 5000000\r\n\r\n").encode()
    holder.sendall(head + part)
    return holder


def upload_is_refused_busy(cookie, token):
    """Whether a form upload now is refused for the account's uploads at once (429): the slow
    ones hold every slot. (While a slot is free it goes through: a text file, refused as no photo.)"""
    body = b'--e2e\r\nContent-Disposition: form-data; name="image"; filename="probe.jpg"\r\nContent-Type: image/jpeg\r\n\r\nnot a photo\r\n--e2e--\r\n'
    request = urllib.request.Request(f"{base}/photos?_csrf={urllib.parse.quote(token)}", data=body, method="POST", headers={
        "Cookie": cookie, "Content-Type": "multipart/form-data; boundary=e2e"})
    try:
        urllib.request.urlopen(request)
        return False
    except urllib.error.HTTPError as error:
        return error.code == 429


def contrast(first, second):
    """WCAG's contrast ratio of two CSS colours given as rgb(…) or rgba(…)."""
    def luminance(colour):
        channels = [int(c) / 255 for c in re.findall(r"[\d.]+", colour)[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def eventually(condition, timeout=10):
    """True as soon as `condition()` is, False if it is not within `timeout` seconds."""
    end = time.time() + timeout
    while time.time() < end:
        if condition():
            return True
        time.sleep(0.1)
    return False


def sql_count(query):
    """One number from the app's database (the e2e run's own)."""
    out = subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-qtA", "-d", os.environ["E2E_DATABASE_NAME"], "-c", query],
                         capture_output=True, text=True, check=True).stdout.strip()
    return int(out)


def check_forms_sent_once():
    """A form is sent once however often its button is pressed (forms.js). The first answer is
    held in the browser (CDP Fetch at the response stage: the server has done its work, the page
    is still there, as on a slow connection) while the button is pressed again; then Back to the
    page, which may send it again. Also the keyboard's first stop (the skip link) and a form sent
    back with errors putting the focus on the first field to correct."""
    browser = new_browser(1280, 900, page_load_strategy="none")
    loaded = lambda d: d.execute_script("return document.readyState") == "complete"
    email = f"ada+{uuid.uuid4().hex[:8]}@example.com"
    browser.get(base + "/signup")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.NAME, "full_name"))
    # The first Tab: "Skip to content", which takes the focus past the header into the page.
    ActionChains(browser).send_keys(Keys.TAB).perform()
    check(browser.execute_script("return document.activeElement.className") == "skip-link",
          "the first Tab stop is the skip link")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    check(browser.execute_script("return document.activeElement.id") == "main", "the skip link moves the focus to the page's content")
    # A focused field's ring and a field's edge stand out from the card (WCAG 1.4.11: 3:1).
    ring, edge, card = browser.execute_script("""const field = document.getElementById('full_name'); field.focus();
        const style = getComputedStyle(field);
        return [style.outlineColor, style.borderTopColor, getComputedStyle(field.closest('.card')).backgroundColor]""")
    check(contrast(ring, card) >= 3 and contrast(edge, card) >= 3,
          f"a focused field's ring and a field's edge have 3:1 against the card (ring {contrast(ring, card):.2f}, edge {contrast(edge, card):.2f})")
    fill({"full_name": "Ada Lovelace", "email": "ada at home", "password": "ada password 1", "password_confirmation": "ada password 1"}, browser)
    browser.execute_script("document.querySelector('main form:not(.banner form) button[type=submit]').click()")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#email[aria-invalid=true]") and loaded(d))
    check(browser.execute_script("return document.activeElement.id") == "email",
          "a sign-up sent back with an error has the focus on the field to correct")
    fill({"email": email, "password": "ada password 1", "password_confirmation": "ada password 1"}, browser)
    browser.execute_script("document.querySelector('main form:not(.banner form) button[type=submit]').click()")
    _, link = wait_for_mail(email, "Confirm your email address")
    browser.get(base + "/signin")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.NAME, "email") and loaded(d))
    fill({"email": email, "password": "ada password 1"}, browser)
    browser.execute_script("document.querySelector('main form:not(.banner form) button[type=submit]').click()")
    WebDriverWait(browser, 10).until(lambda d: "/gallery" in d.current_url and loaded(d))
    browser.get(link)
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "main form:not(.banner form) button[type=submit]") and loaded(d))
    browser.execute_script("document.querySelector('main form:not(.banner form) button[type=submit]').click()")
    WebDriverWait(browser, 10).until(lambda d: "/gallery" in d.current_url and loaded(d))

    browser.get(base + "/albums")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "album-title") and loaded(d))
    title = f"Sent once {uuid.uuid4().hex[:6]}"
    fill({"title": title}, browser)
    browser.execute_cdp_cmd("Fetch.enable", {"patterns": [{"urlPattern": "*/albums", "requestStage": "Response"}]})
    press_create = "document.querySelector('form[action=\"/albums\"] button[type=submit]').click()"
    # The second press a second after the first, from the page itself: while the first answer is
    # held the page is still there (and the driver would wait for the navigation to end).
    browser.execute_script(f"{press_create}; setTimeout(() => {{ {press_create} }}, 1000)")
    check(eventually(lambda: sql_count(f"SELECT count(*) FROM albums WHERE title = '{title}'") == 1),
          "the first press made the album (its answer held in the browser)")
    time.sleep(2.5)
    made = sql_count(f"SELECT count(*) FROM albums WHERE title = '{title}'")
    browser.execute_cdp_cmd("Fetch.disable", {})
    check(made == 1, f"“Create album” pressed twice while its answer is on the way makes one album ({made})")
    browser.get(base + "/albums")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "album-title") and loaded(d))
    check(browser.page_source.count(title) == 1, "the albums page lists it once")
    # A page the browser kept (Back): its form can be sent again.
    other = f"Sent again {uuid.uuid4().hex[:6]}"
    fill({"title": other}, browser)
    browser.execute_script(press_create)
    WebDriverWait(browser, 10).until(lambda d: "/albums/" in d.current_url and loaded(d))
    browser.back()
    WebDriverWait(browser, 10).until(lambda d: d.current_url == base + "/albums" and loaded(d))
    fill({"title": other + " too"}, browser)
    browser.execute_script(press_create)
    check(eventually(lambda: sql_count(f"SELECT count(*) FROM albums WHERE title = '{other} too'") == 1),
          "after Back, the albums form sends again")
    check_page_hygiene("albums after Back", browser)
    browser.quit()
    browsers.remove(browser)


def check_share_and_organise():
    """Issue 22 as a person does it, at desktop size: ten photos uploaded at once (and a file that
    is no photo refused on its own), month groups, selecting with Shift+click and Space, a new album
    from the selection, a password-protected link to it opened in a second browser with no cookies
    (the password asked, the headers, images without camera metadata, no original, no email, no file
    names), the viewer's arrow keys for both, the link turned off, then downloading and deleting a
    selection; axe-core on every new page."""
    driver.set_window_size(1280, 900)
    hedy = f"hedy+{uuid.uuid4().hex[:8]}@example.com"
    driver.delete_all_cookies()
    driver.get(base + "/signup")
    fill({"full_name": "Hedy Lamarr", "email": hedy, "password": "hedy password 1", "password_confirmation": "hedy password 1"})
    submit()
    _, hedy_link = wait_for_mail(hedy, "Confirm your email address")
    # Opened where nobody is signed in, the link asks for the account's password: the inbox alone
    # is not the account (anyone can sign up with someone else's address).
    driver.get(hedy_link)
    check(len(driver.find_elements(By.NAME, "current_password")) == 1 and "If you did not sign up" in driver.page_source,
          "signed out, the confirmation link asks for the account's password")
    check_page_hygiene("confirm email signed out")
    shot("06c-confirm-email-signed-out")
    sign_in(hedy, "hedy password 1")
    driver.get(hedy_link)
    submit()
    check("/gallery" in driver.current_url, "Hedy confirms her address")

    # Ten photos chosen at once (for upload.js the same as a drop): each its own progress, then "Uploaded".
    walk = make_walk_photos(shots)
    uploaded = {sha256(open(p, "rb").read()): os.path.basename(p) for p in walk}
    driver.find_element(By.LINK_TEXT, "Upload photos").click()
    summary, statuses = upload_files(walk, caption="Spring walk")
    items = driver.execute_script("""return [...document.querySelectorAll('#upload-list li.upload-item')].map(li => ({
        name: li.querySelector('.upload-name').textContent, status: li.querySelector('.upload-status').textContent,
        done: li.classList.contains('is-done'), progress: li.querySelector('progress').value}))""")
    check([i["name"] for i in items] == [os.path.basename(p) for p in walk], f"the list shows the ten files chosen ({len(items)})")
    check(all(i["done"] and i["status"].startswith("Uploaded") and i["progress"] == 100 for i in items),
          f"every file ends “Uploaded” with a full progress bar {[(i['status'], i['progress']) for i in items if not i['done']]}")
    progressed = [any(s.startswith("Uploading") for s in seen[:seen.index("Uploaded ")]) if "Uploaded " in seen else False for seen in statuses]
    check(all(progressed), f"every file showed its progress (“Uploading … %”) before “Uploaded” {statuses if not all(progressed) else ''}")
    check(summary.startswith("10 photos uploaded."), f"the summary says “10 photos uploaded.” ({summary!r})")
    check(driver.current_url == base + "/photos/new", "the page stays on the upload form")
    check(driver.execute_script("return document.activeElement === document.querySelector('#upload-form button[type=submit]')"),
          "the Upload button has the focus again once the uploads end (a keyboard user goes on from there)")
    check_page_hygiene("upload with ten files")
    check_accessibility("upload with the list")
    shot("30-upload-ten-done", full_page=True)

    # A batch with a text file named .jpg: that one shows its own error, the other uploads.
    notes = os.path.abspath(os.path.join(shots, "notes.jpg"))
    with open(notes, "w") as file:
        file.write("Not a photo: shopping list.\n")
    extra = os.path.abspath(os.path.join(shots, "hedy-extra.jpg"))
    make_jpeg(extra, sun=(120, 200, 255))
    driver.get(base + "/photos/new")
    summary, _ = upload_files([extra, notes])
    items = driver.execute_script("""return [...document.querySelectorAll('#upload-list li.upload-item')].map(li => ({
        status: li.querySelector('.upload-status').textContent, error: li.classList.contains('is-error'), done: li.classList.contains('is-done')}))""")
    check(items[0]["done"] and items[1]["error"] and "Only JPEG, PNG, GIF, WebP and HEIC photos can be uploaded." in items[1]["status"],
          f"a file that is no photo shows its own error while the other uploads {items}")
    check(summary.startswith("1 photo uploaded, 1 failed."), f"the summary counts the failure ({summary!r})")
    check_page_hygiene("upload with a refused file", allow=(415,))
    shot("31-upload-one-refused")

    # The gallery: all ten (and the extra), grouped by month, May 2019 after the newer ones.
    driver.get(base + "/gallery")
    cards = grid_cards()
    months = driver.execute_script("return [...document.querySelectorAll('section.month h2')].map(h => h.textContent)")
    check(len(cards) == 11 and sum(c["caption"] == "Spring walk" for c in cards) == 10, f"all ten photos are in the gallery ({len(cards)} cards)")
    names = [link.accessible_name for link in driver.find_elements(By.CSS_SELECTOR, ".photo-card > a")]
    check(sum(name.count("Spring walk") == 1 for name in names) == 10,
          f"a photo's link is read once by its caption and date, not the caption twice ({names[:1]})")
    may = [c for c in cards if c["month"] == "May 2019"]
    check(len(months) >= 2 and months[-1] == "May 2019", f"the gallery has a “May 2019” section, last {months}")
    check(len(may) == 3 and cards[-3:] == may, "the photos taken in 2019 come after the newer ones")

    # Keyboard: Space on a focused checkbox selects its photo (and again clears it).
    count = driver.find_element(By.ID, "selection-count")
    hint = count.text
    first_box = driver.find_element(By.CSS_SELECTOR, "input.select-photo")
    driver.execute_script("arguments[0].focus()", first_box)
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    check(first_box.is_selected() and count.text == "1 photo selected", f"Space on a focused checkbox selects the photo ({count.text!r})")
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    check(not first_box.is_selected() and count.text == hint, "Space again clears it")

    # Shift+click: the first of May 2019's checkboxes, then Shift on the third, selects all three.
    may_boxes = driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby='month-2019-05'] input.select-photo")
    ActionChains(driver).click(may_boxes[0]).perform()
    ActionChains(driver).key_down(Keys.SHIFT).click(may_boxes[2]).key_up(Keys.SHIFT).perform()
    cards = grid_cards()
    check([c["id"] for c in cards if c["checked"]] == [c["id"] for c in may], "Shift+click selects the range, the middle photo too")
    check(count.text == "3 photos selected", f"the bar says “3 photos selected” ({count.text!r})")
    check_page_hygiene("gallery with a selection")
    check_accessibility("gallery with a selection")
    driver.execute_script("document.getElementById('month-2019-05').scrollIntoView({block: 'center'})")
    wait_for_visible_images()
    shot("32-gallery-selection")

    # "A new album…" with a name, "Add to album": the album's page with the three.
    Select(driver.find_element(By.ID, "target-album")).select_by_visible_text("A new album…")
    driver.find_element(By.ID, "new-album-title").send_keys("May in Paris")
    click_and_wait("button[name=action][value=add]")
    check(re.match(re.escape(base) + r"/albums/[^/?]+\?", driver.current_url) is not None and "The photos are in the album." in driver.page_source,
          "“Add to album” lands on the new album's page")
    album_url = driver.current_url.split("?")[0]
    check(driver.find_element(By.TAG_NAME, "h1").text == "May in Paris", "the album has its name")
    album_cards = grid_cards()
    check([c["id"] for c in album_cards] == [c["id"] for c in may], f"the album holds the three photos, in order ({len(album_cards)})")
    wait_for_visible_images()
    check_page_hygiene("album")
    check_accessibility("album")
    shot("33-album")

    # Share it: one day, with a password; the link is shown once.
    driver.find_element(By.XPATH, "//details[contains(@class,'share-form')]/summary[normalize-space()='Share this album']").click()
    driver.find_element(By.CSS_SELECTOR, "details.share-form input[name=expires][value='1']").click()
    driver.find_element(By.ID, "share-password").send_keys("open sesame 2019")
    click_and_wait("details.share-form button[type=submit]")
    check("Your link is ready" in driver.page_source and "to whoever also knows its password" in driver.page_source, "the link is made, with its password")
    share_url = driver.find_element(By.ID, "new-link").get_attribute("value")
    check(re.fullmatch(re.escape(base) + r"/s/[A-Za-z0-9_-]{32}", share_url) is not None, f"the page shows the link's address ({share_url[:len(base) + 8]}…)")
    check_page_hygiene("link created")
    check_accessibility("link created")
    shot("34-link-created")
    driver.get(base + "/albums")
    check("May in Paris" in driver.page_source and "3 photos" in driver.page_source, "the albums page lists the album with its count")
    wait_for_visible_images()
    check_page_hygiene("albums")
    check_accessibility("albums")
    shot("35-albums")
    driver.get(base + "/links")
    row = driver.find_element(By.CSS_SELECTOR, "table.links tbody tr").text
    check("May in Paris" in row and "Yes" in row, f"“your links” lists the link, with a password ({row!r})")
    check_page_hygiene("links")
    check_accessibility("links")
    shot("36-links")

    # A visitor: another browser, no cookies. The password first (a wrong one refused).
    visitor = new_browser(1280, 900)
    visitor.get(share_url)
    check("This link has a password" in visitor.page_source, "the visitor is asked for the link's password")
    check_page_hygiene("shared password", visitor)
    check_accessibility("shared password page", visitor)
    shot("37-shared-password", visitor)
    status, headers, _ = http_get(share_url)
    check(status == 401 and headers.get("X-Robots-Tag", "").startswith("noindex") and headers.get("Referrer-Policy") == "no-referrer",
          f"the password page is kept from search engines and sends no referrer ({status}, {headers.get('X-Robots-Tag')}, {headers.get('Referrer-Policy')})")
    fill({"password": "not the password"}, visitor)
    submit(visitor)
    check("That is not the password" in visitor.page_source and "/s/" in visitor.current_url, "a wrong password is refused")
    check_accessibility("shared password page with its error", visitor)
    fill({"password": "open sesame 2019"}, visitor)
    submit(visitor)
    check(visitor.find_element(By.TAG_NAME, "h1").text == "May in Paris", "the right password opens the album")
    thumbnails = visitor.find_elements(By.CSS_SELECTOR, ".gallery img")
    check(len(thumbnails) == 3, f"the visitor sees three thumbnails ({len(thumbnails)})")
    wait_for_visible_images(visitor)
    check_page_hygiene("shared album", visitor)
    check_accessibility("shared album page", visitor)
    shot("38-shared-album", visitor)
    visitor_cookie = cookie_header(visitor)
    status, headers, page = http_get(share_url, visitor_cookie)
    check(status == 200 and headers.get("X-Robots-Tag", "").startswith("noindex") and headers.get("Referrer-Policy") == "no-referrer",
          f"the shared page answers X-Robots-Tag: noindex… and Referrer-Policy: no-referrer ({status}, {headers.get('X-Robots-Tag')}, {headers.get('Referrer-Policy')})")
    for source, where in ((visitor.page_source, "the shared album's page"), (page.decode(), "the shared album's HTML")):
        check(hedy not in source and "hedy-walk" not in source, f"{where} holds neither the owner's email nor the file names")

    # Every image of the page (each size in srcset), with the visitor's cookie: no camera metadata.
    image_urls = visitor.execute_script("""return [...new Set([...document.querySelectorAll('.gallery img')].flatMap(i =>
        [i.src, ...i.srcset.split(',').map(s => new URL(s.trim().split(/\\s+/)[0], location.href).href)]))]""")
    # The display copy of one photo, from its page: the visitor opens the first.
    visitor.find_element(By.CSS_SELECTOR, ".gallery a").click()
    WebDriverWait(visitor, 10).until(lambda d: d.execute_script("const i=document.querySelector('img.full'); return i && i.complete && i.naturalWidth > 0;"))
    check("/photos/" in visitor.current_url and hedy not in visitor.page_source and "hedy-walk" not in visitor.page_source,
          "the shared photo's page holds neither the owner's email nor the file names")
    check_page_hygiene("shared photo", visitor)
    check_accessibility("shared photo page", visitor)
    shot("39-shared-photo", visitor)
    display_urls = visitor.execute_script("""const i = document.querySelector('img.full');
        return [...new Set([i.currentSrc, i.src, ...(i.srcset ? i.srcset.split(',').map(s => new URL(s.trim().split(/\\s+/)[0], location.href).href) : [])])]""")
    folder = os.path.join(shots, "shared-images")
    os.makedirs(folder, exist_ok=True)
    fetched = []
    for number, url in enumerate(image_urls + [u for u in display_urls if u not in image_urls]):
        status, headers, body = http_get(url, visitor_cookie)
        path = os.path.join(folder, f"{number:02d}-{url.rstrip('/').split('/')[-1].split('?')[0]}")
        with open(path, "wb") as file:
            file.write(body)
        fetched.append((url, status, headers.get("Content-Type", ""), path))
    check(all(s == 200 and t.startswith("image/") for _, s, t, _ in fetched) and len(display_urls) >= 1 and len(fetched) > 3,
          f"the visitor's cookie fetches every thumbnail and the display copy ({len(fetched)} images)")
    originals_found = camera_metadata(walk[7:])
    check(all(any("GPS" in k for k in keys) and any(k.endswith("DateTimeOriginal") for k in keys) and any(k.startswith("XMP") for k in keys)
              and any(k.startswith("IPTC") for k in keys) for keys in originals_found.values()),
          "(exiftool sees GPS, DateTimeOriginal, XMP and IPTC in the uploaded originals)")
    leaks = {name: keys for name, keys in camera_metadata([p for *_, p in fetched]).items() if keys}
    check(not leaks and len(camera_metadata([p for *_, p in fetched])) == len(fetched),
          f"no shared image carries GPS, DateTimeOriginal, Make/Model/Software, XMP or IPTC {leaks if leaks else ''}")
    # The owner's original, asked for with the visitor's cookie: sign in first, no image.
    original_url = base + f"/photos/{may[0]['id']}/original"
    status, headers, body = http_get(original_url, visitor_cookie, follow=False)
    check(status in (302, 303) and "/signin" in headers.get("Location", "") and not headers.get("Content-Type", "").startswith("image/"),
          f"the owner's original is not the visitor's to download ({status} → {headers.get('Location')})")

    # The viewer's arrow keys: the visitor's shared photo page (May 3rd, then the 2nd, and back).
    shared_first = visitor.current_url
    shared_next = visitor.find_element(By.CSS_SELECTOR, ".viewer-nav a[rel=next]").get_attribute("href")
    press(Keys.ARROW_RIGHT, visitor)
    check(visitor.current_url == shared_next and may[1]["id"] in visitor.current_url, "ArrowRight on a shared photo opens the next (older) one")
    press(Keys.ARROW_LEFT, visitor)
    check(visitor.current_url == shared_first, "ArrowLeft goes back to the newer one")
    # ... and the owner's photo page.
    driver.get(base + may[0]["href"])
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("const i=document.querySelector('img.full'); return i && i.complete && i.naturalWidth > 0;"))
    check_page_hygiene("photo page")
    check_accessibility("photo page")
    shot("40-photo-viewer")
    press(Keys.ARROW_RIGHT, driver)
    check(driver.current_url == base + may[1]["href"], "ArrowRight on the owner's photo page opens the next (older) photo")
    press(Keys.ARROW_LEFT, driver)
    check(driver.current_url == base + may[0]["href"], "ArrowLeft goes back to the newer one")

    # The owner turns the link off on the album's page: the visitor's page and images stop at once.
    driver.get(album_url)
    click_and_wait("table.links button.danger-action")
    check("The link was turned off." in driver.page_source and driver.current_url.startswith(album_url), "the owner turns the link off from the album's page")
    visitor.get(share_url)
    check("This link does not exist, has expired or was turned off." in visitor.page_source
          and visitor.find_element(By.CSS_SELECTOR, ".status-code").text == "404", "the visitor's reload shows the 404 page")
    gone = [http_get(url, visitor_cookie)[0] for url, *_ in fetched]
    check(set(gone) == {404}, f"every image fetched before answers 404 now {sorted(set(gone))}")
    visitor.quit()
    browsers.remove(visitor)

    # Bulk: two photos' originals as a ZIP, byte for byte; one photo deleted behind a confirmation.
    driver.get(base + "/gallery")
    pair = [c for c in grid_cards() if c["caption"] == "Spring walk"][:2]
    for card in pair:
        ActionChains(driver).click(driver.find_element(By.ID, f"select-{card['id']}")).perform()
    driver.find_element(By.CSS_SELECTOR, "button[name=action][value=download]").click()
    archive_path = os.path.join(downloads, "selfie-2-photos.zip")
    WebDriverWait(driver, 20).until(lambda _: os.path.exists(archive_path) and not os.path.exists(archive_path + ".crdownload"))
    owner_cookie = cookie_header(driver)
    chosen = sorted(sha256(http_get(base + f"/photos/{c['id']}/original", owner_cookie)[2]) for c in pair)
    with zipfile.ZipFile(archive_path) as archive:
        zipped = sorted(sha256(archive.read(name)) for name in archive.namelist())
    check(zipped == chosen and all(h in uploaded for h in zipped),
          f"“Download originals” gives a ZIP of the two, byte-identical to the files uploaded {[uploaded.get(h) for h in zipped]}")
    driver.get(base + "/gallery")
    victim = pair[0]
    ActionChains(driver).click(driver.find_element(By.ID, f"select-{victim['id']}")).perform()
    click_and_wait("button[name=action][value=delete]")
    check("Delete this photo?" in driver.find_element(By.TAG_NAME, "h1").text, "“Delete…” asks to confirm first")
    check_accessibility("delete the selection")
    shot("41-delete-selection")
    click_and_wait("main form button.danger")
    check("The photos are in the trash." in driver.page_source, "deleting the selection confirms: to the trash")
    left = grid_cards()
    check(len(left) == 10 and victim["id"] not in [c["id"] for c in left], "the deleted photo is gone from the gallery")
    check(http_get(base + victim["href"], owner_cookie)[0] == 404, "its page answers 404")
    # The trash: the photo is there, and Restore puts it back in the gallery.
    driver.get(base + "/trash")
    check(driver.find_elements(By.ID, f"select-{victim['id']}") != [], "the deleted photo is in the trash")
    check_accessibility("trash")
    shot("42-trash")
    ActionChains(driver).click(driver.find_element(By.ID, f"select-{victim['id']}")).perform()
    click_and_wait("button[name=action][value=restore]")
    check("Restored" in driver.page_source and "The trash is empty." in driver.page_source, "restore empties the trash")
    driver.get(base + "/gallery")
    check(victim["id"] in [c["id"] for c in grid_cards()], "the restored photo is back in the gallery")


def english_sentences(language):
    """The English catalogue's sentences (no placeholders, 12 characters or more) that read
    differently in `language`: none of them may appear on that language's pages."""
    def read(code):
        messages = {}
        for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Locales", code, "*.ftl"))):
            for line in open(path, encoding="utf-8"):
                match = re.match(r"^([a-z][a-z0-9-]*) = (.+)$", line.rstrip("\n"))
                if match and "{" not in match.group(2):
                    messages[match.group(1)] = match.group(2)
        return messages
    english, other = read("en"), read(language)
    return [text for key, text in english.items() if len(text) >= 12 and other.get(key) != text]


def check_no_english(page, language, browser):
    text = browser.execute_script("""return document.body.innerText + ' ' + [...document.querySelectorAll('[aria-label],[title],[alt],[placeholder]')]
        .map(e => [e.getAttribute('aria-label'), e.title, e.alt, e.placeholder].join(' ')).join(' ')""")
    found = [sentence for sentence in english_sentences(language) if sentence in text]
    check(not found, f"{language} {page}: no English sentence of the catalogue on the page {found[:3] if found else ''}")


CACHE_LISTING = """const done = arguments[arguments.length - 1];
    (async () => {
        const listing = {};
        for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            listing[name] = (await cache.keys()).map(r => { const u = new URL(r.url); return u.pathname + u.search; });
        }
        return listing;
    })().then(done, error => done({error: String(error)}));"""

SHARE_FROM_ANOTHER_APP = """const [files, done] = [arguments[0], arguments[arguments.length - 1]];
    // What the share sheet does: a POST navigation to the manifest's share_target, multipart, the
    // photos in its files field. A form's submit() is such a navigation.
    const manifest = await (await fetch('/manifest.webmanifest')).json();
    const target = manifest.share_target;
    const form = document.createElement('form');
    form.method = target.method; form.enctype = target.enctype; form.action = target.action;
    const input = document.createElement('input');
    input.type = 'file'; input.name = target.params.files[0].name; input.multiple = true;
    const transfer = new DataTransfer();
    for (const [name, data] of files) {
        const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
        transfer.items.add(new File([bytes], name, {type: 'image/jpeg'}));
    }
    input.files = transfer.files;
    form.appendChild(input);
    document.body.appendChild(form);
    form.submit();
    done(true);"""


def shared_jpegs(names, sun):
    """Real JPEGs as the share sheet would hand them over: (file name, base64 bytes)."""
    files = []
    for index, name in enumerate(names):
        path = os.path.join(shots, name)
        make_jpeg(path, sun=(sun[0], sun[1], (sun[2] + 60 * index) % 256))
        files.append((name, base64.b64encode(open(path, "rb").read()).decode()))
    return files


def share_into_app(browser, files):
    """Shares `files` into the installed app from a page of the site (the worker answers)."""
    page = browser.find_element(By.TAG_NAME, "html")
    browser.execute_async_script("(async () => {" + SHARE_FROM_ANOTHER_APP + "})()", files)
    WebDriverWait(browser, 15).until(lambda _: is_gone(page))
    WebDriverWait(browser, 15).until(lambda d: d.execute_script("return document.readyState") == "complete")


def shared_files_ready(browser, count):
    WebDriverWait(browser, 15).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#upload-list li.upload-item")) == count)
    return browser.execute_script("""return {
        items: [...document.querySelectorAll('#upload-list li.upload-item')].map(li => ({
            name: li.querySelector('.upload-name').textContent, status: li.querySelector('.upload-status').textContent})),
        inInput: [...document.getElementById('image').files].map(f => f.name),
        summary: document.getElementById('upload-summary').hidden ? '' : document.getElementById('upload-summary').textContent}""")


def check_installable_app():
    """Issue 26, the installable app: Chromium finds the manifest installable (CDP), the service
    worker takes a share of two JPEGs (a multipart POST navigation to the manifest's share_target,
    as the share sheet makes) and the upload form shows both ready; Upload puts them in the gallery.
    Shared while signed out, the photos wait through the sign-in. The worker's caches hold static
    files and the offline page only (no page, API answer or photo), the shared photos only until
    they are uploaded; with the network gone a page shows the offline page."""
    browser = new_browser(420, 900)
    ines = f"ines+{uuid.uuid4().hex[:8]}@example.com"
    browser.get(base + "/signup")
    fill({"full_name": "Ines Installed", "email": ines, "password": "ines password 1", "password_confirmation": "ines password 1"}, browser)
    submit(browser)
    browser.get(base + "/signin")
    fill({"email": ines, "password": "ines password 1"}, browser)
    submit(browser)
    check(browser.current_url.startswith(base + "/gallery"), "Ines is signed in, on her empty gallery")
    # The page registers the worker; it takes over once installed (clients.claim).
    active = browser.execute_async_script("""const done = arguments[arguments.length - 1];
        navigator.serviceWorker.ready.then(r => done(r.active && r.active.scriptURL), e => done(String(e)));""")
    check(active == base + "/sw.js", f"the service worker is active ({active})")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))

    # (a) Installable, as Chromium decides it for "Install app" / "Add to home screen".
    errors = browser.execute_cdp_cmd("Page.getInstallabilityErrors", {})
    check(errors.get("installabilityErrors") == [], f"Chromium finds Selfie installable {errors}")
    manifest = browser.execute_cdp_cmd("Page.getAppManifest", {})
    check(manifest.get("errors") == [] and manifest.get("url") == base + "/manifest.webmanifest",
          f"the manifest parses without errors {manifest.get('errors')}")
    data = json.loads(manifest.get("data") or "{}")
    purposes = {(icon["sizes"], icon["purpose"]) for icon in data.get("icons", [])}
    check(data.get("name") == "Selfie" and data.get("start_url") == "/gallery" and data.get("display") == "standalone"
          and {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes,
          f"the manifest names Selfie, starts at the gallery, standalone, with 192/512 and maskable icons {sorted(purposes)}")
    target = data.get("share_target", {})
    check(target.get("method") == "POST" and target.get("enctype") == "multipart/form-data"
          and "image/*" in target.get("params", {}).get("files", [{}])[0].get("accept", []),
          f"the manifest's share target takes photos by multipart POST {target}")
    colour = browser.execute_script("return document.querySelector('meta[name=theme-color]').content")
    check(colour == "#ffffff", f"the page has a theme colour ({colour})")
    shot("70-installable-gallery", browser)

    # (b) Two JPEGs shared from another app, signed in: the upload form shows them ready.
    first = shared_jpegs(["IMG_2041.jpg", "IMG_2042.jpg"], (250, 200, 40))
    share_into_app(browser, first)
    check(browser.current_url == base + "/photos/new?shared=1", f"the share lands on the upload form ({browser.current_url})")
    ready = shared_files_ready(browser, 2)
    check([i["name"] for i in ready["items"]] == ["IMG_2041.jpg", "IMG_2042.jpg"] and all(i["status"] == "Ready" for i in ready["items"]),
          f"both shared photos are listed, ready {ready['items']}")
    check(ready["inInput"] == ["IMG_2041.jpg", "IMG_2042.jpg"], f"the form's file field holds them {ready['inInput']}")
    check(ready["summary"].startswith("The 2 photos you shared are ready"), f"the page says they are ready ({ready['summary']!r})")
    check_page_hygiene("upload with shared photos", browser)
    check_accessibility("upload with shared photos", browser)
    shot("71-shared-photos-ready", browser, full_page=True)
    caches = browser.execute_async_script(CACHE_LISTING)
    inbox = caches.get("selfie-share-inbox", [])
    check(len(inbox) == 2 and all(key.startswith("/share-inbox/") for key in inbox), f"the worker kept the two shared files until they go up {inbox}")

    browser.find_element(By.ID, "title").send_keys("Shared from the camera app")
    browser.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(browser, 60).until(lambda d: d.execute_script(
        "const s = document.getElementById('upload-summary'); return s && !s.hidden && /uploaded/.test(s.textContent)"))
    summary = browser.find_element(By.ID, "upload-summary").text
    check(summary.startswith("2 photos uploaded."), f"Upload sends both ({summary!r})")
    shot("72-shared-photos-uploaded", browser)
    deadline = time.time() + 10
    while "selfie-share-inbox" in (left := browser.execute_async_script(CACHE_LISTING)) and time.time() < deadline:
        time.sleep(0.2)
    check("selfie-share-inbox" not in left, f"once uploaded, the shared files are gone from the worker's inbox {left.get('selfie-share-inbox')}")
    browser.get(base + "/gallery")
    captions = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".gallery .caption")]
    check(captions == ["Shared from the camera app"] * 2, f"the two shared photos are in the gallery {captions}")
    wait_for_visible_images(browser)
    shot("73-shared-photos-gallery", browser)

    # Shared while signed out: sign in first, and the photos are still there.
    click_and_wait("header form button", browser)
    second = shared_jpegs(["PXL_0001.jpg", "PXL_0002.jpg"], (90, 220, 120))
    share_into_app(browser, second)
    check(browser.current_url.startswith(base + "/signin?next="), f"signed out, the share asks to sign in first ({browser.current_url})")
    shot("74-shared-signed-out", browser)
    fill({"email": ines, "password": "ines password 1"}, browser)
    submit(browser)
    check(browser.current_url == base + "/photos/new?shared=1", f"after signing in, back on the upload form ({browser.current_url})")
    ready = shared_files_ready(browser, 2)
    check([i["name"] for i in ready["items"]] == ["PXL_0001.jpg", "PXL_0002.jpg"], f"the photos shared before signing in are ready {ready['items']}")
    browser.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(browser, 60).until(lambda d: d.execute_script(
        "const s = document.getElementById('upload-summary'); return s && !s.hidden && /uploaded/.test(s.textContent)"))
    check(browser.find_element(By.ID, "upload-summary").text.startswith("2 photos uploaded."), "and they upload")
    browser.get(base + "/gallery")
    check(len(browser.find_elements(By.CSS_SELECTOR, ".gallery > li")) == 4, "four photos in the gallery")

    # (c) After the gallery, a photo page, the account page and an API answer: what the worker keeps.
    wait_for_visible_images(browser)
    browser.find_element(By.CSS_SELECTOR, ".gallery a").click()
    browser.get(base + "/account")
    browser.execute_async_script("const done = arguments[arguments.length - 1]; fetch('/api/get_photos').then(() => done(), () => done());")
    caches = browser.execute_async_script(CACHE_LISTING)
    names = sorted(caches)
    check(len(names) == 1 and names[0].startswith("selfie-static-"), f"one cache, the static files' (no share inbox left) {names}")
    kept = [key for name in names for key in caches[name]]
    private = [key for key in kept if re.match(r"^/(media|gallery|photos|api|account|albums|links|trash|admin|s/|signin)", key)]
    check(not private, f"no page, photo or API answer in the worker's caches {private}")
    odd = [key for key in kept if key != "/offline" and not re.match(r"^/assets/.+\.[0-9a-f]{16}(\.[a-z0-9]+)?$", key)]
    check(not odd and "/offline" in kept and len(kept) > 5, f"only fingerprinted static files and the offline page ({len(kept)} entries) {odd}")

    # With the network gone, a page shows the offline page (kept, with nobody's data).
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    browser.get(base + "/albums")
    heading = browser.find_element(By.TAG_NAME, "h1").text
    check(heading == "You are offline" and "Ines" not in browser.page_source, f"offline, a page shows the offline page ({heading!r})")
    check_accessibility("offline page", browser)
    shot("75-offline", browser)
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    browser.find_element(By.LINK_TEXT, "Try again").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.TAG_NAME, "h1").text != "You are offline")
    check(browser.current_url == base + "/albums", f"“Try again” opens the page once the network is back ({browser.current_url})")
    browser.get_log("browser")  # the page that failed while offline is logged, rightly
    browser.quit()
    browsers.remove(browser)


def check_phone():
    """A phone 360 px wide, in German (the longest words): no page scrolls sideways, no field's
    text is under 16 px (Safari zooms into such a field when it gets the focus), a form on its way
    looks it to a finger, leaving while photos upload asks first, a photo's checkbox has a 44 px
    target, and setting up two-step verification links to the authenticator app on this phone."""
    phone = new_browser(500, 900)
    # A window is at least 500 px wide: the phone's screen is emulated (and its touch screen).
    phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
    phone.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    phone.execute_cdp_cmd("Network.enable", {})
    phone.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": "de-DE,de;q=0.9"}})
    phone.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": True})

    def fits(page):
        width, screen = phone.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        check(width <= screen, f"phone, {page}: nothing wider than the screen ({width} px in {screen})")
        small = phone.execute_script("""return [...document.querySelectorAll('input, select, textarea')]
            .filter(el => !['hidden', 'checkbox', 'radio', 'file'].includes(el.type) && !el.hidden)
            .map(el => [el.name || el.id, parseFloat(getComputedStyle(el).fontSize)]).filter(([, size]) => size < 16)""")
        check(not small, f"phone, {page}: no field's text under 16 px {small}")

    email = f"konstanze-{uuid.uuid4().hex[:8]}@example.com"
    phone.get(base + "/signup")
    fits("sign-up")
    fill({"full_name": "Konstanze Weißenbacher-Oberhollenzer", "email": email,
          "password": "correct horse battery", "password_confirmation": "correct horse battery"}, phone)
    submit(phone)
    fits("check your mail")
    phone.get(base + "/signin")
    fits("sign-in")
    fill({"email": email, "password": "correct horse battery"}, phone)
    submit(phone)
    fits("empty gallery")
    _, confirm_link = wait_for_mail(email, "")  # the address confirmed: two-step verification asks it
    phone.get(confirm_link)
    fits("confirm the address")
    submit(phone)

    phone.get(base + "/photos/new")
    fits("upload")
    big = make_large_jpeg(os.path.join(shots, "phone-upload.jpg"), 4)
    slow = {"offline": False, "latency": 20, "downloadThroughput": 8 * 1024 * 1024, "uploadThroughput": 512 * 1024}
    phone.execute_cdp_cmd("Network.emulateNetworkConditions", slow)
    phone.find_element(By.ID, "image").send_keys(big)
    phone.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(phone, 20).until(lambda d: d.execute_script(
        "const p = document.querySelector('#upload-list progress'); return p && p.value > 0"))
    leaving_asks = phone.execute_script("return !window.dispatchEvent(new Event('beforeunload', {cancelable: true}))")
    check(leaving_asks, "phone: leaving the page while a photo is on its way asks first")
    WebDriverWait(phone, 90).until(lambda d: d.execute_script(
        "const s = document.getElementById('upload-summary'); return s && s.textContent.length > 0"))
    phone.execute_cdp_cmd("Network.emulateNetworkConditions", {**slow, "uploadThroughput": -1, "downloadThroughput": -1, "latency": 0})
    leaving_asks = phone.execute_script("return !window.dispatchEvent(new Event('beforeunload', {cancelable: true}))")
    check(not leaving_asks, "phone: once the photos are up, leaving asks nothing")

    phone.get(base + "/gallery")
    wait_for_visible_images(phone)
    fits("gallery")
    target = phone.execute_script("const r = document.querySelector('.photo-card .select-label').getBoundingClientRect(); return [r.width, r.height]")
    check(min(target) >= 44, f"phone: a photo's checkbox takes a finger (its target {target} px)")
    label = phone.find_element(By.CSS_SELECTOR, ".photo-card .select-label")
    ActionChains(phone).move_to_element_with_offset(label, 18, 18).click().perform()
    check(phone.find_element(By.CSS_SELECTOR, ".photo-card .select-photo").is_selected(), "phone: a tap near the checkbox selects the photo")
    fits("gallery with a selection")
    shot("70-phone-gallery-selection", phone)

    phone.find_element(By.CSS_SELECTOR, ".photo-card > a").click()
    WebDriverWait(phone, 10).until(lambda d: "/photos/" in d.current_url)
    fits("photo")
    phone.find_element(By.CSS_SELECTOR, "details.share-form > summary").click()
    click_and_wait("details.share-form button[type=submit]", phone)
    check(len(phone.find_elements(By.CSS_SELECTOR, "input.link-url")) == 1, "phone: the new link is shown")
    fits("the new share link")
    shot("71-phone-link-made", phone)

    phone.get(base + "/account")
    fits("account")
    busy = phone.execute_script("""const form = document.querySelector('main form');
        form.setAttribute('aria-busy', 'true');
        const opacity = getComputedStyle(form.querySelector('button')).opacity;
        form.removeAttribute('aria-busy');
        return parseFloat(opacity)""")
    check(busy < 1, f"phone: a form on its way shows it on its button (opacity {busy})")
    phone.get(base + "/account/two-factor")
    shot("72-phone-two-factor-setup", phone)
    fits("two-step set-up")
    link = phone.find_element(By.ID, "totp-app-link")
    check(link.get_attribute("href").startswith("otpauth://totp/") and "secret=" in link.get_attribute("href"),
          "phone: the set-up links to the authenticator app (otpauth:)")
    phone.get(base + "/trash")
    fits("trash")
    phone.get(base + "/albums")
    fits("albums")
    check_page_hygiene("phone pages", phone)

    # A browser without the resumable upload (tus.js kept from defining itself) on a network that
    # drops the form's posts: the failed photos are sent again with one tap, not picked again.
    hide_tus = phone.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source":
        "Object.defineProperty(window, 'SelfieTus', {configurable: false, get: () => undefined, set: () => {}})"})
    phone.get(base + "/photos/new")
    phone.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/photos?_csrf=*"]})
    pair = [os.path.abspath(os.path.join(shots, f"phone-retry-{n}.jpg")) for n in (1, 2)]
    for n, path in enumerate(pair):
        make_jpeg(path, sun=(60 + 80 * n, 180, 90))
    phone.find_element(By.ID, "image").send_keys("\n".join(pair))
    # Sent from the keyboard (Tab to Upload, Enter), so that the focus is on Upload when it is disabled.
    phone.find_element(By.ID, "title").send_keys("Zweiter Versuch", Keys.TAB, Keys.ENTER)
    WebDriverWait(phone, 30).until(lambda d: d.find_element(By.ID, "upload-retry").is_displayed())
    offer = phone.find_element(By.ID, "upload-retry").text
    check(offer == "Die 2 fehlgeschlagenen Fotos noch einmal senden", f"phone: the dropped photos are offered again ({offer!r})")
    check(phone.execute_script("return document.activeElement.id") == "upload-retry",
          f"phone: the offer has the focus (Upload had it, disabled) ({phone.execute_script('return document.activeElement.outerHTML.slice(0, 80)')})")
    fits("upload with failures")
    shot("73-phone-upload-retry", phone)
    phone.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    phone.find_element(By.ID, "upload-retry").click()
    WebDriverWait(phone, 60).until(lambda d: d.execute_script(
        "const s = document.getElementById('upload-summary'); return s && s.textContent.startsWith('2 Fotos')"))
    check(not phone.find_element(By.ID, "upload-retry").is_displayed(), "phone: once sent, nothing is offered again")
    check(sql_count("SELECT count(*) FROM photos WHERE title = 'Zweiter Versuch'") == 2, "phone: the two photos sent again are stored, with their caption")
    phone.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", hide_tus)


def check_languages_and_themes():
    """Issue 26: the main journey (sign up, upload, gallery, photo, account) in German and in
    Spanish with Accept-Language set, no English sentence on those pages, screenshots; the
    footer's picker; a German visitor's reset mail in German; pages in dark and light with
    axe-core finding nothing in either."""
    for language, accept, greeting in (("de", "de-DE,de;q=0.9", "Hallo, Jutta"), ("es", "es-ES,es;q=0.9", "Hola, Jutta")):
        browser = new_browser(420, 900)
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": accept}})
        # Headers added through CDP are the page's only: the service worker's own fetches (pages
        # go through it once it runs) would go without them, where a German browser's would not.
        browser.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": True})
        zone = "Europe/Madrid" if language == "es" else "Europe/Berlin"
        browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
        email = f"jutta-{language}-{uuid.uuid4().hex[:8]}@example.com"
        browser.get(base + "/signup")
        check(browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == language, f"{language}: the page says lang={language}")
        check_no_english("sign-up", language, browser)
        shot(f"60-{language}-signup", browser)
        fill({"full_name": "Jutta Jansen", "email": email, "password": "correct horse battery", "password_confirmation": "correct horse battery"}, browser)
        submit(browser)
        check_no_english("check your mail", language, browser)
        shot(f"61-{language}-check-mail", browser)
        browser.get(base + "/signin")
        fill({"email": email, "password": "correct horse battery"}, browser)
        submit(browser)
        check(greeting in browser.page_source, f"{language}: the empty gallery greets in its language")
        check_no_english("gallery", language, browser)
        browser.get(base + "/photos/new")
        check_no_english("upload", language, browser)
        photo = os.path.abspath(os.path.join(shots, f"journey-{language}.jpg"))
        make_jpeg(photo, sun=(250, 120, 60))
        browser.find_element(By.ID, "image").send_keys(photo)
        browser.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
        WebDriverWait(browser, 60).until(lambda d: d.execute_script(
            "const s = document.getElementById('upload-summary'); return s && !s.hidden && s.textContent.length > 0"))
        check_no_english("upload finished", language, browser)
        summary = browser.find_element(By.ID, "upload-summary").text
        expected = {"de": "1 Foto hochgeladen.", "es": "1 foto subida."}[language]
        check(summary.startswith(expected), f"{language}: the upload's summary is written in {language} ({summary!r})")
        shot(f"62-{language}-uploaded", browser)
        browser.get(base + "/gallery")
        wait_for_visible_images(browser)
        check_no_english("gallery with a photo", language, browser)
        shot(f"63-{language}-gallery", browser)
        browser.find_element(By.CSS_SELECTOR, ".photo-card a").click()
        WebDriverWait(browser, 10).until(lambda d: "/photos/" in d.current_url)
        check_no_english("photo", language, browser)
        uploaded = browser.find_elements(By.CSS_SELECTOR, ".card .meta")[0].text
        month = {"de": "Nov.", "es": "nov"}[language] if time.gmtime().tm_mon == 11 else ""
        check(month in uploaded and "UTC" not in uploaded, f"{language}: the photo's date is written the {language} way, in the browser's zone ({uploaded!r})")
        shot(f"64-{language}-photo", browser)
        browser.get(base + "/account")
        check(zone in browser.page_source, f"{language}: the account shows times in the browser's zone {zone}")
        check_no_english("account", language, browser)
        shot(f"65-{language}-account", browser, full_page=True)
        check_accessibility(f"{language} account", browser)
        if language == "de":
            # Signed out, the German visitor forgets the password: the mail is German.
            browser.delete_all_cookies()
            browser.get(base + "/password/forgot")
            check_no_english("forgot password", language, browser)
            fill({"email": email}, browser)
            submit(browser)
            check_no_english("reset link sent", language, browser)
            text, link = wait_for_mail(email, "Passwort")
            check(link is not None and "/password/reset" in link, "de: the reset mail carries its link")
            found = [sentence for sentence in english_sentences("de") if sentence in text]
            check(not found, f"de: the reset mail has no English sentence {found[:3] if found else ''}")
        else:
            # The footer's picker: back to English for this browser, and for the account.
            Select(browser.find_element(By.CSS_SELECTOR, "footer select[name=language]")).select_by_value("en")
            click_and_wait("footer button[type=submit]", browser)
            check(browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
                  and browser.current_url.endswith("/account") and "Your account" in browser.page_source,
                  "the footer's picker switches to English and stays on the page")
        browser.quit()
        browsers.remove(browser)

    # Dark and light: the system's preference, then the account's own choice.
    for scheme in ("dark", "light"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for path, name in (("/gallery", "gallery"), ("/account", "account")):
            driver.get(base + path)
            if name == "gallery":
                wait_for_visible_images()
            background = driver.execute_script("return getComputedStyle(document.documentElement).backgroundColor")
            check((background == "rgb(17, 21, 27)") == (scheme == "dark"), f"{scheme}: the {name} page follows the system ({background})")
            shot(f"66-{scheme}-{name}", full_page=True)
            check_accessibility(f"{name} in {scheme}")
        driver.get(base + "/gallery")
        first = driver.find_element(By.CSS_SELECTOR, ".photo-card a").get_attribute("href")
        driver.get(first)
        shot(f"66-{scheme}-photo")
        check_accessibility(f"photo in {scheme}")
        signed_out = new_browser(420, 900)
        signed_out.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        signed_out.get(base + "/signin")
        shot(f"66-{scheme}-signin", signed_out)
        check_accessibility(f"sign-in in {scheme}", signed_out)
        signed_out.quit()
        browsers.remove(signed_out)
    # A fixed choice beats the system's: "Dark" chosen, a light system.
    driver.get(base + "/account")
    Select(driver.find_element(By.ID, "account-theme")).select_by_value("dark")
    click_and_wait("#language-and-time button[type=submit]")
    background = driver.execute_script("return getComputedStyle(document.documentElement).backgroundColor")
    check(background == "rgb(17, 21, 27)", f"the account's “Dark” wins over a light system ({background})")
    shot("67-dark-chosen-account")
    Select(driver.find_element(By.ID, "account-theme")).select_by_value("system")
    click_and_wait("#language-and-time button[type=submit]")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


email = f"ada+{uuid.uuid4().hex[:8]}@example.com"
jpeg = os.path.abspath(os.path.join(shots, "beach.jpg"))
make_jpeg(jpeg)
sunset = os.path.abspath(os.path.join(shots, "sunset.jpg"))
make_jpeg(sunset, sun=(230, 80, 60), size=(480, 640))
try:
    driver.get(base + "/")
    check(driver.current_url.endswith("/signin"), "/ sends a visitor to sign in")
    driver.get(base + "/signup")
    check_page_hygiene("sign-up")
    fill({"full_name": "Ada", "email": "not-an-email", "password": "short", "password_confirmation": "short"})
    submit()
    check("Enter an email address" in driver.page_source, "sign-up shows field errors")
    shot("01-signup-errors")

    fill({"full_name": "Ada Lovelace", "email": email, "password": "first password 1", "password_confirmation": "first password 1"})
    submit()
    check("Check your mail" in driver.page_source and email in driver.page_source, "sign-up asks to check the mail")
    shot("02a-signup-check-your-mail")
    _, confirmation_link = wait_for_mail(email, "Confirm your email address")
    check(confirmation_link is not None and "/verify-email?token=" in confirmation_link, "the confirmation mail carries its link")
    driver.get(base + "/signin")
    fill({"email": email, "password": "first password 1"})
    submit()
    check(driver.current_url.startswith(base + "/gallery"), "sign-in lands on the gallery")
    check("Hello, Ada" in driver.page_source, "gallery greets the new user")
    check("Confirm your email address" in driver.page_source, "a banner asks to confirm the address")
    check("Your gallery is empty." in driver.page_source, "empty gallery invites the first upload")
    shot("02-gallery-empty")

    driver.find_element(By.LINK_TEXT, "Upload your first selfie").click()
    check_page_hygiene("upload")
    summary, _ = upload_files([jpeg], caption="Sunny day at the beach")
    # With the script the page stays on the form and sums up; its link leads to the gallery.
    check(summary.startswith("1 photo uploaded.") and driver.current_url == base + "/photos/new", f"the upload form says the photo was uploaded ({summary!r})")
    driver.find_element(By.LINK_TEXT, "See them in your gallery").click()
    check("Sunny day at the beach" in driver.page_source, "the upload appears in the gallery with its caption")
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("const i=document.querySelector('.gallery img'); return i && i.complete && i.naturalWidth > 0;"))
    grid = driver.execute_script("const i=document.querySelector('.gallery img'); return [i.naturalWidth, i.naturalHeight, i.currentSrc]")
    check(grid[0] > grid[1] > 0 and ".webp?" in grid[2], f"the grid shows a WebP thumbnail through its signed URL {grid[:2]}")
    check_page_hygiene("gallery")
    shot("03-gallery-one-photo")

    driver.find_element(By.LINK_TEXT, "Upload photos").click()
    upload_files([sunset], caption="Sunset, later")
    driver.get(base + "/gallery")
    captions = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".gallery .caption")]
    check(captions == ["Sunset, later", "Sunny day at the beach"], f"the gallery shows the newest first {captions}")
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return [...document.querySelectorAll('.gallery img')].every(i => i.complete && i.naturalWidth > 0)"))
    shot("03b-gallery-two-photos")
    driver.find_element(By.PARTIAL_LINK_TEXT, "Sunset, later").click()
    driver.find_element(By.LINK_TEXT, "Delete this photo…").click()
    submit()
    driver.get(base + "/gallery")

    driver.find_element(By.CSS_SELECTOR, ".gallery a").click()
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("const i=document.querySelector('img.full'); return i && i.complete && i.naturalWidth > 0;"))
    check("Sunny day at the beach" in driver.find_element(By.TAG_NAME, "h1").text, "the photo page shows the caption")
    shot("04-photo-page")
    driver.find_element(By.LINK_TEXT, "Delete this photo…").click()
    check("Delete this photo?" in driver.page_source, "delete asks for confirmation")
    shot("05-delete-confirmation")
    submit()
    check("The photo is in the trash." in driver.page_source, "delete confirms: to the trash")
    check("Your gallery is empty." in driver.page_source, "the gallery is empty again")
    shot("06-gallery-empty-again")

    # The link from the mail: a page with a button (mail scanners that open links confirm nothing).
    driver.get(confirmation_link)
    check_page_hygiene("confirm email")
    shot("06b-confirm-email")
    submit()
    check("Your email address is confirmed." in driver.page_source, "the link confirms the address")
    check("open the link we sent" not in driver.page_source, "the banner is gone")
    driver.get(confirmation_link)
    check("This link does not work any more" in driver.page_source, "the link works once")

    click_and_wait("header form button")
    check("You are signed out." in driver.page_source, "sign-out confirms")

    driver.get(base + "/signin")
    check_page_hygiene("sign-in")
    fill({"email": email, "password": "wrong password"})
    submit()
    check("The email, username or password is incorrect." in driver.page_source, "wrong password is refused")
    shot("07-signin-error")
    fill({"email": email, "password": "first password 1"})
    submit()
    check("/gallery" in driver.current_url, "sign-in works")

    phone = OtherDevice(email, "first password 1")
    check(phone.is_signed_in(), "a second device is signed in")
    driver.get(base + "/account")
    check_page_hygiene("account")
    check(email in driver.page_source and "This browser" in driver.page_source, "account lists this session")
    check("Sign out everywhere else" in driver.page_source, "account lists the other device")
    check("used, no limit" in driver.page_source and "<meter" not in driver.page_source, "account shows the storage used (no bar without a quota)")
    check_accessibility("account")
    shot("08-account")
    fill({"current_password": "first password 1", "new_password": "second password 2", "new_password_confirmation": "second password 2"})
    click_and_wait("form[action='/account/password'] button")
    check("Your password was changed." in driver.page_source, "password change confirmed")
    check(not phone.is_signed_in(), "the other device was signed out by the password change")
    shot("09-password-changed")

    wait_for_mail(email, "Your Selfie password was changed")
    check(True, "a notice of the password change is mailed")

    click_and_wait("header form button")
    driver.get(base + "/signin")
    fill({"email": email, "password": "second password 2"})
    submit()
    check("/gallery" in driver.current_url, "the new password signs in")
    click_and_wait("header form button")

    # A forgotten password: the link arrives by mail; the new password ends every session.
    phone = OtherDevice(email, "second password 2")
    check(phone.is_signed_in(), "another device is signed in before the reset")
    driver.get(base + "/signin")
    driver.find_element(By.LINK_TEXT, "Forgot your password?").click()
    check_page_hygiene("forgot password")
    fill({"email": email})
    submit()
    check("Check your mail" in driver.page_source, "the form says to check the mail, whoever asks")
    shot("09b-forgot-password-sent")
    _, reset_link = wait_for_mail(email, "Reset your Selfie password")
    driver.get(reset_link)
    check_page_hygiene("reset password")
    shot("09c-reset-password")
    fill({"new_password": "third password 3", "new_password_confirmation": "third password 3"})
    submit()
    check("Your password was changed and every session was signed out." in driver.page_source, "the reset confirms")
    check(not phone.is_signed_in(), "the reset signed the other device out")
    fill({"email": email, "password": "second password 2"})
    submit()
    check("The email, username or password is incorrect." in driver.page_source, "the old password no longer works")
    fill({"email": email, "password": "third password 3"})
    submit()
    check("/gallery" in driver.current_url, "the new password signs in")
    driver.get(reset_link)
    check("This link does not work any more" in driver.page_source, "the reset link works once")
    driver.get(base + "/gallery")
    click_and_wait("header form button")

    # The admin (created with `selfie admin create`) finds that user, disables them, sees the audit entry.
    driver.get(base + "/signin")
    fill({"email": os.environ["E2E_ADMIN_EMAIL"], "password": os.environ["E2E_ADMIN_PASSWORD"]})
    submit()
    driver.find_element(By.LINK_TEXT, "Admin").click()
    check("sign-ins in the last 24 hours" in driver.page_source or "sign-in in the last 24 hours" in driver.page_source, "the admin dashboard shows its counts")
    check_page_hygiene("admin dashboard")
    shot("10-admin-dashboard")
    driver.find_element(By.LINK_TEXT, "Users").click()
    fill({"q": email.split("+")[1].split("@")[0].upper()})
    click_and_wait("form.search button")
    check_page_hygiene("admin users")
    check(email in driver.page_source, "the admin finds the user by part of their email")
    shot("11-admin-user-search")
    driver.find_element(By.LINK_TEXT, "Ada Lovelace").click()
    check(email in driver.page_source, "the user page shows the profile")
    shot("12-admin-user")
    driver.find_element(By.CSS_SELECTOR, "input[name=quota][value=custom]").click()
    fill({"megabytes": "50"})
    click_and_wait("form[action$='/quota'] button")
    check("The storage quota was changed." in driver.page_source and "of 50 MB used" in driver.page_source,
          "the admin gives the user a 50 MB quota")
    shot("12b-admin-user-quota", full_page=True)
    check_page_hygiene("admin user")
    check_accessibility("admin user with a quota")
    driver.find_element(By.PARTIAL_LINK_TEXT, "Disable account").click()
    check("Disable account?" in driver.page_source, "disabling asks for confirmation")
    shot("13-admin-confirm-disable")
    submit()
    check("The account was updated." in driver.page_source and "disabled" in driver.page_source, "the user is disabled")
    driver.find_element(By.LINK_TEXT, "Audit log").click()
    check_page_hygiene("audit log")
    check("admin.user_disabled" in driver.page_source and email in driver.page_source, "the audit log shows the disable, with the user")
    shot("14-admin-audit")
    driver.find_element(By.LINK_TEXT, "Integrity").click()
    check("No check has run yet" in driver.page_source, "the integrity page says no check has run yet")
    check_page_hygiene("integrity")
    check_accessibility("integrity")

    # "Continue with Google": the authorization-code flow against the fake provider.
    driver.delete_all_cookies()
    driver.get(base + "/signin")
    check_page_hygiene("sign-in with providers")
    shot("15-signin-with-google-button")
    click_and_wait("form.provider-sign-in button")
    check("Fake identity provider" in driver.page_source, "the button leads to the provider's consent page")
    click_and_wait("#approve")
    check(driver.current_url.startswith(base + "/gallery"), "the provider sends the browser back signed in")
    check("Hello, Gail" in driver.page_source, "the new account has the provider's name")
    shot("16-signed-in-with-google")
    driver.get(base + "/account")
    check("gail.google@example.com" in driver.page_source and "<strong>Google</strong>" in driver.page_source, "the account page lists the linked Google account")
    check("Set a password" in driver.page_source, "an account made with Google can set a password")
    check_page_hygiene("account with a linked provider")
    driver.execute_script("document.getElementById('sign-in-methods').scrollIntoView()")
    shot("17-account-linked-google")

    # Photos as phones save them: a JPEG stored sideways (EXIF Orientation 6) and a HEIC.
    sideways, heic = make_phone_photos(shots)
    for path, caption in ((sideways, "Sideways on disk"), (heic, "From an iPhone")):
        driver.get(base + "/photos/new")
        summary, _ = upload_files([path], caption=caption)
        check(summary.startswith("1 photo uploaded."), f"the {caption!r} upload is summed up ({summary!r})")
    driver.get(base + "/gallery")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return [...document.querySelectorAll('.gallery img')].every(i => i.complete)"))
    images = driver.execute_script("""return [...document.querySelectorAll('.gallery li')].map(li => {
        const i = li.querySelector('img');
        return {caption: li.querySelector('.caption').textContent, width: i.naturalWidth, height: i.naturalHeight, src: i.currentSrc};
    })""")
    check(len(images) == 2 and all(i["width"] > 0 for i in images), f"every gallery image loads {images}")
    by_caption = {i["caption"]: i for i in images}
    check(by_caption["Sideways on disk"]["height"] > by_caption["Sideways on disk"]["width"], "the sideways JPEG is shown upright (portrait)")
    check(by_caption["From an iPhone"]["width"] > by_caption["From an iPhone"]["height"], "the HEIC is shown, landscape as taken")
    check(all(".webp?" in i["src"] and ".heic" not in i["src"] for i in images), "every grid image is a WebP thumbnail, not an original")
    shot("18-gallery-phone-photos")
    driver.find_element(By.PARTIAL_LINK_TEXT, "Sideways on disk").click()
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("const i=document.querySelector('img.full'); return i && i.complete && i.naturalWidth > 0;"))
    # The viewer's srcset lets a narrow screen take the 800 px copy; its `src` is the display copy.
    size = driver.execute_script("const i=document.querySelector('img.full'); return [i.naturalWidth, i.naturalHeight, i.src]")
    check(size[1] > size[0] > 0, f"the photo page shows the photo upright (portrait) {size[:2]}")
    display = Image.open(io.BytesIO(http_get(size[2], cookie_header(driver))[2]))
    check(display.size == (800, 1200) and display.format == "JPEG" and ".jpg?" in size[2], f"the photo page's display copy is the upright JPEG {display.size}")
    check("Download the original" in driver.page_source, "the owner can download the original")
    shot("19-photo-page-upright")

    # "Download my data": the browser saves a ZIP with both originals and account.json.
    driver.get(base + "/account")
    driver.execute_script("document.getElementById('your-data').scrollIntoView()")
    driver.find_element(By.LINK_TEXT, "Download my data").click()
    WebDriverWait(driver, 20).until(lambda _: [f for f in os.listdir(downloads) if f.endswith(".zip")])
    archive_path = os.path.join(downloads, next(f for f in os.listdir(downloads) if f.endswith(".zip")))
    with zipfile.ZipFile(archive_path) as archive:
        names = archive.namelist()
        check(archive.testzip() is None, f"the ZIP reads back intact {names}")
        account = json.loads(archive.read("account.json"))
        sizes = sorted(archive.getinfo(n).file_size for n in names if n != "account.json")
    originals = sorted(os.path.getsize(p) for p in (sideways, heic))
    check(sizes == originals, f"the ZIP holds both originals, byte for byte the size uploaded {sizes}")
    check(account["email"] == "gail.google@example.com" and len(account["photos"]) == 2,
          "account.json holds the account and its two photos")

    # Deleting the account from its page (signed in with Google a moment ago: no password to enter).
    driver.execute_script("document.getElementById('delete-account').scrollIntoView()")
    shot("20-account-delete")
    click_and_wait("#delete-account button[type=submit]")
    check("Your account, your photos and your sessions were deleted." in driver.page_source, "deleting the account confirms")
    driver.get(base + "/gallery")
    check(driver.current_url.startswith(base + "/signin"), "the deleted account is signed out")
    wait_for_mail("gail.google@example.com", "Your Selfie account was deleted")
    check(True, "a goodbye mail is sent")

    # Two-step verification with an authenticator app.
    grace = f"grace+{uuid.uuid4().hex[:8]}@example.com"
    driver.delete_all_cookies()
    driver.get(base + "/signup")
    fill({"full_name": "Grace Hopper", "email": grace, "password": "grace password 1", "password_confirmation": "grace password 1"})
    submit()
    _, grace_link = wait_for_mail(grace, "Confirm your email address")
    sign_in(grace, "grace password 1")
    # Two-step verification and passkeys wait until the address is confirmed.
    driver.get(grace_link)
    submit()
    check("/gallery" in driver.current_url, "Grace confirms her address")
    driver.get(base + "/account")
    driver.execute_script("document.getElementById('two-factor').scrollIntoView()")
    shot("21-account-two-factor-off")
    driver.find_element(By.LINK_TEXT, "Set up an authenticator app").click()
    check_page_hygiene("two-factor set-up")
    qr = driver.find_element(By.CSS_SELECTOR, ".qr-code svg")
    qr_png = os.path.join(shots, "totp-qr.png")
    qr.screenshot(qr_png)
    scanned = subprocess.run(["zbarimg", "--quiet", "--raw", qr_png], capture_output=True, text=True).stdout.strip()
    driver.find_element(By.CSS_SELECTOR, "details summary").click()
    secret = driver.find_element(By.ID, "totp-secret").text.replace(" ", "")
    check(scanned.startswith("otpauth://totp/Selfie:") and f"secret={secret}&" in scanned, f"the QR code scans to the key shown ({scanned[:40]}…)")
    shot("22-two-factor-setup")
    fill({"code": "000000"})
    submit()
    check("That code is not right" in driver.page_source, "a wrong code is refused inline")
    fill({"code": totp(secret)})
    submit()
    codes = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".recovery-codes code")]
    check(len(set(codes)) == 10 and "Two-step verification is on" in driver.page_source, "turning it on shows ten recovery codes")
    check_page_hygiene("recovery codes")
    shot("23-recovery-codes")

    sign_in(grace, "grace password 1")
    check(driver.current_url == base + "/signin/code", "after the password, sign-in asks for the code")
    check_page_hygiene("sign-in code step")
    shot("24-signin-code")
    fill({"code": totp(secret, 1)})
    submit()
    check(driver.current_url.startswith(base + "/gallery"), "the app's code signs in")
    sign_in(grace, "grace password 1")
    fill({"code": codes[0]})
    submit()
    check(driver.current_url.startswith(base + "/gallery"), "a recovery code signs in")
    sign_in(grace, "grace password 1")
    fill({"code": codes[0]})
    submit()
    check(driver.current_url == base + "/signin/code" and "already used" in driver.page_source, "the same recovery code does not work twice")
    fill({"code": codes[1]})
    submit()

    # Passkeys, with Chromium's virtual authenticator (a platform authenticator that verifies the user).
    driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
    authenticator = driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]
    # "Confirm it's you": Grace's sign-in is made eleven minutes old (a browser left open); adding
    # a passkey then asks for her password first and comes back.
    subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-q", "-d", os.environ["E2E_DATABASE_NAME"], "-c",
                    "UPDATE web_sessions SET confirmed_at = now() - interval '11 minutes', created_at = now() - interval '11 minutes'"],
                   check=True, stdout=subprocess.DEVNULL)
    driver.get(base + "/account")
    driver.execute_script("document.getElementById('passkeys').scrollIntoView()")
    driver.find_element(By.ID, "add-passkey").click()
    WebDriverWait(driver, 15).until(lambda d: "/account/confirm" in d.current_url)
    check("Confirm it's you" in driver.page_source, "an old sign-in is asked to confirm it's you before adding a passkey")
    check_page_hygiene("confirm it's you")
    shot("24b-confirm-its-you")
    # Two-step verification is on: the password comes with a code (here her third recovery code).
    fill({"current_password": "grace password 1", "code": codes[2]})
    submit()
    check(driver.current_url.startswith(base + "/account"), "the password and a code bring her back to her account")
    driver.execute_script("document.getElementById('passkeys').scrollIntoView()")
    driver.find_element(By.ID, "add-passkey").click()
    WebDriverWait(driver, 15).until(lambda d: "Your passkey is ready" in d.page_source)
    stored = driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    check(len(stored) == 1 and stored[0]["isResidentCredential"], "the passkey is created on the authenticator (discoverable)")
    check("Chrome on Linux" in driver.find_element(By.ID, "passkeys").text, "the account page lists the passkey")
    check_page_hygiene("account with a passkey")
    rename = driver.find_element(By.CSS_SELECTOR, "#passkeys input[name=name]")
    rename.clear()
    rename.send_keys("Work laptop")
    click_and_wait("#passkeys form.inline button[type=submit]")
    check("Work laptop" in driver.find_element(By.ID, "passkeys").text, "the passkey is renamed")
    shot("25-account-passkey")

    # The browser's passkey autofill: the virtual authenticator answers the page's conditional
    # request at once, as a person picking the passkey from the username field's suggestions.
    driver.delete_all_cookies()
    driver.get(base + "/signin")
    WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(base + "/gallery"))
    check("Grace Hopper" in driver.page_source, "passkey autofill signs in with no password and no code")
    # The button, as in a browser without passkey autofill.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);"})
    driver.delete_all_cookies()
    driver.get(base + "/signin")
    shot("26-signin-passkey-button")
    driver.find_element(By.ID, "passkey-sign-in").click()
    WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(base + "/gallery"))
    check("Grace Hopper" in driver.page_source, "“Sign in with a passkey” signs in with no password and no code")
    stored = driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    check(stored[0]["signCount"] >= 2, "the authenticator counted both sign-ins")
    driver.get(base + "/account")
    click_and_wait("#passkeys form.inline:nth-of-type(2) button[type=submit]")
    check("The passkey was removed." in driver.page_source and "You have no passkey yet." in driver.page_source, "the passkey is removed")
    driver.delete_all_cookies()
    driver.get(base + "/signin")
    driver.find_element(By.ID, "passkey-sign-in").click()
    WebDriverWait(driver, 15).until(lambda d: "That did not work" in d.page_source)
    check(driver.current_url.startswith(base + "/signin"), "a removed passkey no longer signs in")
    shot("27-removed-passkey-refused")

    check_forms_sent_once()
    check_share_and_organise()
    check_resumable_upload()
    check_installable_app()
    check_languages_and_themes()
    check_phone()
finally:
    for browser in browsers:
        browser.quit()

print(f"screenshots in {os.path.abspath(shots)}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
