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
labelled on each page. The server's PUBLIC_URL is http://localhost:PORT: WebAuthn needs a host name. Mail is read from the SMTP server's folder
(E2E_SMTP_MESSAGES, scripts/smtp_sink.py).
"""
import base64
import glob
import hashlib
import hmac
import json
import struct
import time
import zipfile
import http.cookiejar
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request
import uuid

from PIL import Image, ImageDraw

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

base, shots = sys.argv[1], sys.argv[2]
os.makedirs(shots, exist_ok=True)

options = webdriver.ChromeOptions()
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=420,900"):
    options.add_argument(flag)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
# Debian's chromium and its driver, named explicitly so selenium never tries to download one.
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
driver.implicitly_wait(5)
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


def shot(name):
    path = os.path.join(shots, f"{name}.png")
    driver.save_screenshot(path)
    print(f"     screenshot {path}")


def fill(fields):
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name)
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


def click_and_wait(selector):
    """Clicks a submit button and waits until the next page has replaced this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, selector).click()
    WebDriverWait(driver, 10).until(lambda _: is_gone(page))
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def submit():
    """Submits the page's form (not the "send it again" form of the confirmation banner)."""
    click_and_wait("main form:not(.banner form) button[type=submit]")


def check_page_hygiene(page):
    # A form re-rendered with its errors answers 401/422 on purpose, and a used mail link 410;
    # Chromium logs that document load as a failed resource. Anything else at SEVERE level is a real error.
    errors = [
        e for e in driver.get_log("browser")
        if e["level"] == "SEVERE" and not (e["source"] == "network" and any(f" {s} " in e["message"] for s in (401, 410, 422)))
    ]
    check(not errors, f"{page}: no console errors {errors if errors else ''}")
    # (An input with the `hidden` attribute is the username hint for password managers, never shown.)
    unlabeled = driver.execute_script(
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
    driver.find_element(By.ID, "image").send_keys(jpeg)
    driver.find_element(By.ID, "title").send_keys("Sunny day at the beach")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(driver, 15).until(lambda d: "/gallery" in d.current_url)
    WebDriverWait(driver, 5).until(lambda d: "Your photo was uploaded." in d.page_source)
    check("Sunny day at the beach" in driver.page_source, "the upload appears in the gallery with its caption")
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("const i=document.querySelector('.gallery img'); return i && i.complete && i.naturalWidth > 0;"))
    grid = driver.execute_script("const i=document.querySelector('.gallery img'); return [i.naturalWidth, i.naturalHeight, i.currentSrc]")
    check(grid[0] > grid[1] > 0 and ".webp?" in grid[2], f"the grid shows a WebP thumbnail through its signed URL {grid[:2]}")
    check_page_hygiene("gallery")
    shot("03-gallery-one-photo")

    driver.find_element(By.LINK_TEXT, "Upload a selfie").click()
    driver.find_element(By.ID, "image").send_keys(sunset)
    driver.find_element(By.ID, "title").send_keys("Sunset, later")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    WebDriverWait(driver, 15).until(lambda d: "Your photo was uploaded." in d.page_source)
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
    check("The photo was deleted." in driver.page_source, "delete confirms")
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
    check("failed sign-ins in the last 24 hours" in driver.page_source, "the admin dashboard shows its counts")
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
    driver.find_element(By.PARTIAL_LINK_TEXT, "Disable account").click()
    check("Disable account?" in driver.page_source, "disabling asks for confirmation")
    shot("13-admin-confirm-disable")
    submit()
    check("The account was updated." in driver.page_source and "disabled" in driver.page_source, "the user is disabled")
    driver.find_element(By.LINK_TEXT, "Audit log").click()
    check_page_hygiene("audit log")
    check("admin.user_disabled" in driver.page_source and email in driver.page_source, "the audit log shows the disable, with the user")
    shot("14-admin-audit")

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
        driver.find_element(By.ID, "image").send_keys(path)
        driver.find_element(By.ID, "title").send_keys(caption)
        driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
        WebDriverWait(driver, 30).until(lambda d: "Your photo was uploaded." in d.page_source)
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
    size = driver.execute_script("const i=document.querySelector('img.full'); return [i.naturalWidth, i.naturalHeight, i.currentSrc]")
    check(size[:2] == [800, 1200] and ".jpg?" in size[2], f"the photo page shows the upright display copy {size[:2]}")
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
finally:
    driver.quit()

print(f"screenshots in {os.path.abspath(shots)}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
