"""The rebuilt hosted login page (`/authorize`) in a real Chromium.

Drives every step a person sees: the address form (email and phone), the code step, the
passkey offer and passkey sign-in (Chrome's virtual authenticator over CDP), the magic link
on the same device, on another device (the match number) and by a stranger, single sign-on
into a second application, `response_mode=form_post`, languages, branding, the dark scheme
and a 360-px phone. Every page and state is screenshotted to $SESAME_ARTIFACTS.

The browser talks to Sesame as http://localhost:<port>, the issuer's host: it is the
WebAuthn relying party ID, and magic links name it, so cookies set by the page reach the link.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from hosted import (CALLBACK, LOCALES, AppServer, ask_for_code, authorize_url, email_of, enter_code, exchange, pkce,
                    query_of, server, strings, text, use_callback, userinfo, wait_arrival)

playwright_api = pytest.importorskip("playwright.sync_api")

ARTIFACTS = Path(os.environ.get("SESAME_ARTIFACTS", "/tmp/sesame-artifacts"))
APP = "Default App"


# -- helpers -------------------------------------------------------------
def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def app():
    server = AppServer()
    yield server
    server.server.shutdown()


def add_authenticator(context, page) -> None:
    """Chrome's virtual platform authenticator for ``page`` (as in test_passkey_browser.py)."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
    }})


def ask_for_link(page, address: str) -> str:
    """Types ``address``, asks for a link, waits for the waiting page; returns its number."""
    page.fill("#username", address)
    page.click("button[name=send][value=link]")
    page.wait_for_selector("#match-code")
    match = page.inner_text("#match-code").strip()
    assert len(match) == 2 and match.isdigit(), match
    return match


# -- 1. code login, passkey offer, "Not now", then single sign-on ---------
def test_code_login_offer_not_now_then_single_sign_on(sesame, browser, app):
    callback = use_callback(sesame, app.callback())
    shop_callback = app.callback("shop")
    shop = sesame.cli_json("admin", "apps", "create", "--name", "Shop", "--type", "spa",
                           "--callback", shop_callback, "--allowed-origin", app.origin)
    context = browser.new_context()
    page = context.new_page()
    verifier, challenge = pkce()

    page.goto(authorize_url(sesame, challenge, state="st-code", redirect_uri=callback))
    assert page.inner_text("h1") == text("en", "login_heading", app=APP)
    username = page.locator("#username")
    assert username.get_attribute("type") == "email"
    assert username.get_attribute("autocomplete") == "email webauthn"
    assert page.inner_text("button[name=send][value=code]") == text("en", "email_code")
    assert page.inner_text("button[name=send][value=link]") == text("en", "email_link")
    assert page.locator("a.link", has_text=text("en", "use_phone")).count() == 1
    page.wait_for_selector("#passkey-button", state="visible")  # shown by passkey.js
    assert page.inner_text("#passkey-button") == text("en", "passkey_button")
    shot(page, "hosted-identifier-en")

    code = ask_for_code(page, sesame, "ana@example.com")
    assert page.inner_text("h1") == text("en", "code_heading")
    assert page.get_attribute("#otp", "autocomplete") == "one-time-code"
    assert "ana@example.com" in page.inner_text("p.intro")
    assert page.locator("button.link", has_text=text("en", "resend")).count() == 1
    assert page.locator("a.link", has_text=text("en", "different_address")).count() == 1
    shot(page, "hosted-code")

    enter_code(page, code)
    page.wait_for_selector("#enroll-button", state="visible")
    assert page.inner_text("h1") == text("en", "offer_heading")
    assert page.inner_text("#enroll-button") == text("en", "offer_create")
    assert page.inner_text("a#skip") == text("en", "offer_skip")
    shot(page, "hosted-passkey-offer")

    page.click("a#skip")
    query = query_of(wait_arrival(page, app))
    assert query["state"] == "st-code" and query["code"]
    tokens = exchange(sesame, query["code"], verifier, redirect_uri=callback)
    assert email_of(sesame, tokens) == "ana@example.com"

    # Single sign-on: the second application gets a code without any page in between.
    shop_verifier, shop_challenge = pkce()
    answers: list = []
    page.on("response", lambda r: answers.append(r) if r.url.startswith(server(sesame)) else None)
    page.goto(authorize_url(sesame, shop_challenge, state="st-shop", client_id=shop["client_id"],
                            redirect_uri=shop_callback))
    query = query_of(wait_arrival(page, app, "shop"))
    assert answers and all(300 <= r.status < 400 for r in answers), [(r.url, r.status) for r in answers]
    assert query["state"] == "st-shop"
    shop_tokens = exchange(sesame, query["code"], shop_verifier, client_id=shop["client_id"],
                           redirect_uri=shop_callback)
    assert email_of(sesame, shop_tokens) == "ana@example.com"
    context.close()


# -- 2. response_mode=form_post -----------------------------------------
def open_authorize(sesame, browser, app, state: str, **parameters):
    """A new browser on the hosted page for the test app's callback; returns the context, the
    page, the PKCE verifier and the callback."""
    callback = use_callback(sesame, app.callback())
    context = browser.new_context()
    page = context.new_page()
    verifier, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, state=state, redirect_uri=callback, **parameters))
    return context, page, verifier, callback


def test_form_post_delivers_code_and_state_by_post(sesame, browser, app):
    context, page, verifier, callback = open_authorize(sesame, browser, app, "st-post", response_mode="form_post")
    enter_code(page, ask_for_code(page, sesame, "bo@example.com"))
    page.wait_for_selector("a#skip")
    page.click("a#skip")
    hit = wait_arrival(page, app)
    assert hit["method"] == "POST", hit
    assert "code=" not in hit["url"]
    body = {k: v[0] for k, v in parse_qs(hit["body"]).items()}
    assert body["state"] == "st-post" and body["code"], hit
    assert email_of(sesame, exchange(sesame, body["code"], verifier, redirect_uri=callback)) == "bo@example.com"
    context.close()


# -- 3. languages --------------------------------------------------------
@pytest.mark.parametrize("language, how", [("fr", "ui_locales"), ("de", "accept-language"), ("es", "ui_locales")])
def test_the_page_speaks_the_asked_language(sesame, browser, language, how):
    context = browser.new_context(locale="de-DE") if how == "accept-language" else browser.new_context()
    page = context.new_page()
    _, challenge = pkce()
    extra = {"ui_locales": language} if how == "ui_locales" else {}
    page.goto(authorize_url(sesame, challenge, **extra))
    assert page.get_attribute("html", "lang") == language
    assert page.inner_text("h1") == text(language, "login_heading", app=APP)
    assert page.inner_text("label[for=username]") == text(language, "email_label")
    assert page.inner_text("button[name=send][value=code]") == text(language, "email_code")
    assert page.inner_text("button[name=send][value=link]") == text(language, "email_link")
    assert page.inner_text(".links a.link") == text(language, "use_phone")
    page.wait_for_selector("#passkey-button", state="visible")
    assert page.inner_text("#passkey-button") == text(language, "passkey_button")
    assert page.title() == text(language, "title_sign_in", app=APP)
    shot(page, f"hosted-identifier-{language}")

    # The next step stays in that language.
    page.fill("#username", "lea@example.com")
    page.click("button[name=send][value=code]")
    page.wait_for_selector("#otp")
    assert page.get_attribute("html", "lang") == language
    assert page.inner_text("h1") == text(language, "code_heading")
    assert page.inner_text("button.primary") == text(language, "continue")
    shot(page, f"hosted-code-{language}")
    context.close()


# -- 4. dark scheme, a 360-px phone, an invalid address ------------------
def test_dark_scheme_mobile_layout_and_invalid_email(sesame, browser):
    _, challenge = pkce()
    url = authorize_url(sesame, challenge)

    dark = browser.new_context(color_scheme="dark")
    page = dark.new_page()
    page.goto(url)
    page.wait_for_selector("#passkey-button", state="visible")
    card = page.evaluate("getComputedStyle(document.querySelector('main.card')).backgroundColor")
    body = page.evaluate("getComputedStyle(document.body).backgroundColor")
    color = page.evaluate("getComputedStyle(document.querySelector('h1')).color")
    assert card == "rgb(28, 31, 36)", card
    assert body == "rgb(17, 19, 22)", body
    assert color == "rgb(236, 238, 242)", color
    shot(page, "hosted-dark")
    dark.close()

    phone = browser.new_context(viewport={"width": 360, "height": 740})
    page = phone.new_page()
    page.goto(url)
    page.wait_for_selector("#passkey-button", state="visible")
    shot(page, "hosted-mobile-360")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    targets = page.locator("button:visible, a.link:visible, a.button:visible, input:visible")
    assert targets.count() >= 5
    for i in range(targets.count()):
        box = targets.nth(i).bounding_box()
        label = targets.nth(i).evaluate("e => e.outerHTML.slice(0, 80)")
        assert box["height"] >= 44, f"{label}: {box}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, f"{label}: {box}"

    # The longest labels (French) fit on the phone too: nothing overflows its button.
    page.goto(authorize_url(sesame, challenge, ui_locales="fr"))
    page.wait_for_selector("#passkey-button", state="visible")
    shot(page, "hosted-mobile-360-fr")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    overflowing = page.evaluate(
        "[...document.querySelectorAll('button, a')].filter(e => e.offsetParent && e.scrollWidth > e.clientWidth)"
        ".map(e => e.textContent)")
    assert not overflowing, overflowing

    # The code step on the phone too.
    page.goto(url)
    page.fill("#username", "mo@example.com")
    page.click("button[name=send][value=code]")
    page.wait_for_selector("#otp")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for button in page.locator("button:visible, a.link:visible").all():
        assert button.bounding_box()["height"] >= 44, button.evaluate("e => e.outerHTML.slice(0, 80)")
    shot(page, "hosted-mobile-360-code")

    # An invalid address: the browser's own check is off, so the server answers.
    page.goto(url)
    page.evaluate("document.querySelector('form[action=\"/authorize/start\"]').noValidate = true")
    page.fill("#username", "not-an-email")
    page.click("button[name=send][value=code]")
    page.wait_for_selector("#alert:not(:empty)")
    assert page.inner_text("#alert") == text("en", "error_email")
    assert page.get_attribute("#username", "aria-invalid") == "true"
    assert page.input_value("#username") == "not-an-email"
    assert page.evaluate("document.activeElement.id") == "alert"
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(page, "hosted-error-email")
    phone.close()


# -- 5. passkey enrolment from the offer, then passkey sign-in -----------
def test_create_a_passkey_from_the_offer_then_sign_in_with_it(sesame, browser, app):
    callback = use_callback(sesame, app.callback())
    context = browser.new_context()
    page = context.new_page()
    add_authenticator(context, page)
    verifier, challenge = pkce()

    page.goto(authorize_url(sesame, challenge, state="st-enrol", redirect_uri=callback))
    enter_code(page, ask_for_code(page, sesame, "kim@example.com"))
    page.wait_for_selector("#enroll-button", state="visible")
    page.click("#enroll-button")
    query = query_of(wait_arrival(page, app))
    assert query["state"] == "st-enrol"
    owner = exchange(sesame, query["code"], verifier, redirect_uri=callback)
    profile = userinfo(sesame, owner)
    assert profile["email"] == "kim@example.com"
    listed = sesame.cli_json("admin", "passkeys", "list", "--user", profile["sub"])
    assert len(listed) == 1, listed

    page.goto(f"{server(sesame)}/v2/logout")
    page.click("#logout-confirm")  # a bare logout link asks first
    assert page.inner_text("h1") == text("en", "signed_out_heading")
    shot(page, "hosted-signed-out")

    # By autofill: nothing is clicked; the email field's passkey suggestion (conditional
    # mediation, answered by the virtual authenticator) signs in.
    app.hits.clear()
    verifier, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, state="st-autofill", redirect_uri=callback))
    query = query_of(wait_arrival(page, app))
    assert query["state"] == "st-autofill"
    assert email_of(sesame, exchange(sesame, query["code"], verifier, redirect_uri=callback)) == "kim@example.com"

    # By the button: with autofill unavailable (as in browsers without conditional mediation),
    # "Sign in with a passkey" opens the browser's own passkey dialog.
    page.goto(f"{server(sesame)}/v2/logout")
    page.click("#logout-confirm")
    page.wait_for_selector("text=" + text("en", "signed_out_heading"))
    page.add_init_script("PublicKeyCredential.isConditionalMediationAvailable = async () => false;")
    app.hits.clear()
    verifier, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, state="st-button", redirect_uri=callback))
    assert not app.hits, "nothing answered before the click"
    page.locator("#passkey-button").click()
    query = query_of(wait_arrival(page, app))
    assert query["state"] == "st-button"
    assert email_of(sesame, exchange(sesame, query["code"], verifier, redirect_uri=callback)) == "kim@example.com"

    # With a passkey on the account, a code login (in a browser without it: no autofill to
    # answer first) goes straight to the application, with no offer.
    app.hits.clear()
    elsewhere = browser.new_context()
    laptop = elsewhere.new_page()
    verifier, challenge = pkce()
    laptop.goto(authorize_url(sesame, challenge, state="st-again", redirect_uri=callback))
    enter_code(laptop, ask_for_code(laptop, sesame, "kim@example.com"))
    assert query_of(wait_arrival(laptop, app))["state"] == "st-again"
    elsewhere.close()
    context.close()


# -- 6. magic link on the same device ------------------------------------
def test_magic_link_in_another_tab_of_the_same_browser(sesame, browser, app):
    context, waiting, verifier, callback = open_authorize(sesame, browser, app, "st-link")
    ask_for_link(waiting, "lin@example.com")
    assert waiting.inner_text("h1") == text("en", "link_heading")
    assert "lin@example.com" in waiting.inner_text("main")
    assert waiting.inner_text("#link-status") == text("en", "link_waiting")
    shot(waiting, "hosted-link-waiting")

    link = sesame.last_message("lin@example.com")["link"]
    assert link.startswith(server(sesame)), link
    tab = context.new_page()
    tab.goto(link)
    assert tab.inner_text("h1") == text("en", "confirm_heading", app=APP)
    assert tab.locator("#match").count() == 0
    shot(tab, "hosted-link-confirm")
    tab.locator("button.primary", has_text=text("en", "confirm_button")).click()
    tab.wait_for_url(callback + "**")
    query = query_of(wait_arrival(tab, app))
    assert query["state"] == "st-link"
    assert email_of(sesame, exchange(sesame, query["code"], verifier, redirect_uri=callback)) == "lin@example.com"

    # The waiting tab learns at its next poll (every 2 s) that the link was used here.
    waiting.wait_for_function(
        "t => document.getElementById('link-status').textContent !== t", arg=text("en", "link_waiting"),
        timeout=6000)
    shot(waiting, "hosted-link-elsewhere")
    assert waiting.inner_text("#link-status") == text("en", "link_elsewhere")
    assert len(app.arrivals()) == 1, "the waiting tab must not sign in a second time"
    assert waiting.url.startswith(server(sesame))
    context.close()


# -- 7. magic link on another device -------------------------------------
def two_devices(sesame, browser, app, email: str, state: str):
    """The asking browser waits for a link to ``email``; another browser (a phone) will open it.
    Returns both contexts, the waiting page, the PKCE verifier, the callback, the number and the link."""
    callback = use_callback(sesame, app.callback())
    asking = browser.new_context()
    other = browser.new_context()
    waiting = asking.new_page()
    verifier, challenge = pkce()
    waiting.goto(authorize_url(sesame, challenge, state=state, redirect_uri=callback))
    match = ask_for_link(waiting, email)
    return asking, other, waiting, verifier, callback, match, sesame.last_message(email)["link"]


def test_magic_link_on_another_device_signs_the_asking_screen_in(sesame, browser, app):
    asking, other, waiting, verifier, callback, match, link = two_devices(
        sesame, browser, app, "cy@example.com", "st-cross")

    # A mail scanner fetches the link first: a GET consumes nothing.
    scanned = requests.get(link.replace(server(sesame), sesame.base_url, 1), timeout=10)
    assert scanned.status_code == 200, scanned.text

    phone = other.new_page()
    phone.goto(link)
    assert phone.inner_text("h1") == text("en", "match_heading")
    assert phone.inner_text("label[for=match]") == text("en", "match_code_label")
    assert "cy@example.com" in phone.inner_text("p.intro")
    assert phone.locator("button", has_text=text("en", "match_deny")).count() == 1
    shot(phone, "hosted-link-match")
    shot(waiting, "hosted-link-waiting-cross")
    phone.fill("#match", match)
    phone.locator("button.primary", has_text=text("en", "match_confirm")).click()
    phone.wait_for_selector("h1")
    assert phone.inner_text("h1") == text("en", "match_done_heading")
    shot(phone, "hosted-link-done")

    # The asking screen gets there by itself (it polls every two seconds).
    waiting.wait_for_url(callback + "**", timeout=10000)
    [hit] = app.arrivals()  # the other device is not sent to the application
    query = query_of(hit)
    assert query["state"] == "st-cross"
    tokens = exchange(sesame, query["code"], verifier, redirect_uri=callback)
    assert email_of(sesame, tokens) == "cy@example.com"
    assert phone.url.startswith(server(sesame))
    context_cookies = {c["name"] for c in other.cookies()}
    assert not any("session" in name for name in context_cookies), context_cookies
    asking.close()
    other.close()


# -- 8. a stranger's link ------------------------------------------------
def test_a_wrong_number_refuses_the_sign_in(sesame, browser, app):
    asking, other, waiting, _, callback, match, link = two_devices(
        sesame, browser, app, "dee@example.com", "st-stranger")
    wrong = f"{(int(match) + 37) % 100:02d}"

    stranger = other.new_page()
    stranger.goto(link)
    stranger.fill("#match", wrong)
    stranger.locator("button.primary", has_text=text("en", "match_confirm")).click()
    stranger.wait_for_selector("h1")
    assert stranger.inner_text("h1") == text("en", "match_denied_heading")
    assert text("en", "match_wrong") in stranger.inner_text("main")
    shot(stranger, "hosted-link-wrong-number")

    # A refusal is an error: announced in the alert, with the number and the button gone.
    waiting.wait_for_function(
        "t => document.getElementById('alert').textContent === t", arg=text("en", "link_denied"),
        timeout=8000)
    assert waiting.locator("#match-code").is_hidden() and waiting.locator("#link-form").is_hidden()
    shot(waiting, "hosted-link-refused")

    # Reloading the stranger's page shows how it ended again; it posts nothing.
    stranger.reload()
    assert stranger.inner_text("h1") == text("en", "match_denied_heading")

    # The link is dead now, even with the right number (on yet another device).
    third = browser.new_context()
    again = third.new_page()
    again.goto(link)
    shot(again, "hosted-link-after-refusal")
    if again.locator("#match").count():
        again.fill("#match", match)
        again.locator("button.primary", has_text=text("en", "match_confirm")).click()
        again.wait_for_selector("h1")
    assert again.inner_text("h1") != text("en", "match_done_heading")
    assert text("en", "link_expired") in again.inner_text("main")
    shot(again, "hosted-link-dead")
    waiting.wait_for_timeout(2500)  # one more poll of the waiting tab
    assert not app.arrivals()
    assert waiting.url.startswith(server(sesame))
    asking.close()
    other.close()
    third.close()


# -- 9. branding ---------------------------------------------------------
def test_branding_logo_and_colour(sesame, browser):
    logo = "https://cdn.example.com/shop-logo.png"
    sesame.cli("admin", "apps", "update", sesame.client_id, "--logo-url", logo, "--brand-color", "#7b2ff7")
    context = browser.new_context()
    page = context.new_page()
    _, challenge = pkce()
    # The logo's host does not resolve offline: do not wait for it to fail loading.
    page.goto(authorize_url(sesame, challenge), wait_until="domcontentloaded")
    page.wait_for_selector("#passkey-button", state="visible")
    img = page.locator(".brand img")
    assert img.count() == 1 and img.get_attribute("src") == logo
    assert img.get_attribute("alt") == APP, "the logo names the application for screen readers"
    primary = page.evaluate(
        "getComputedStyle(document.querySelector('button[name=send][value=code]')).backgroundColor")
    assert primary == "rgb(123, 47, 247)", primary
    foreground = page.evaluate("getComputedStyle(document.querySelector('button[name=send][value=code]')).color")
    assert foreground == "rgb(255, 255, 255)", foreground  # white reads on this purple
    shot(page, "hosted-branded")

    # The brand carries to the code step.
    page.fill("#username", "ed@example.com")
    page.click("button[name=send][value=code]", no_wait_after=True)
    page.wait_for_selector("#otp")
    assert page.evaluate("getComputedStyle(document.querySelector('button.primary')).backgroundColor") == \
        "rgb(123, 47, 247)"
    shot(page, "hosted-branded-code")

    # An http logo is never shown.
    sesame.cli("admin", "apps", "update", sesame.client_id, "--logo-url", "http://cdn.example.com/x.png", check=False)
    page.goto(authorize_url(sesame, challenge), wait_until="domcontentloaded")
    assert page.locator(".brand img[src^='http:']").count() == 0
    context.close()


# -- 10. phone numbers ---------------------------------------------------
def test_sms_form_with_a_national_number(sesame_factory, browser):
    sesame = sesame_factory(env={"SESAME_CONNECTIONS_SMS_DEFAULT_COUNTRY": "GB"}, name="sms")
    context = browser.new_context()
    page = context.new_page()
    _, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, connection="sms"))
    username = page.locator("#username")
    assert username.get_attribute("type") == "tel"
    assert username.get_attribute("autocomplete") == "tel"
    assert page.inner_text("label[for=username]") == text("en", "phone_label")
    assert page.inner_text("#phone-hint") == text("en", "phone_hint_national")
    assert page.inner_text("button[name=send][value=code]") == text("en", "sms_code")
    assert page.locator("button[name=send][value=link]").count() == 0
    assert page.inner_text(".links a.link") == text("en", "use_email")
    shot(page, "hosted-sms")

    page.fill("#username", "07700 900123")
    page.click("button[name=send][value=code]")
    page.wait_for_selector("#otp")
    assert page.inner_text("h1") == text("en", "code_heading_sms")
    assert page.inner_text("p.intro") == text("en", "code_intro", recipient="+447700900123")
    code = sesame.last_code("+447700900123")
    assert code.isdigit()
    shot(page, "hosted-sms-code")

    # "Use an email address instead" goes back to the email form.
    page.goto(authorize_url(sesame, challenge, connection="sms"))
    page.click(".links a.link")
    page.wait_for_selector("#username[type=email]")
    context.close()


# -- 11. Post/Redirect/Get: Reload and Back never send again, never strand -----
def messages_to(sesame, recipient: str) -> list:
    return [message for message in sesame.outbox() if message["recipient"] == recipient]


def test_reload_on_the_code_page_sends_nothing_and_back_lands_on_a_usable_page(sesame, browser, app):
    context, page, verifier, callback = open_authorize(sesame, browser, app, "st-reload")
    code = ask_for_code(page, sesame, "rea@example.com")
    assert urlsplit(page.url).path == "/authorize/step", page.url
    page.reload()
    page.wait_for_selector("input#otp")
    assert "rea@example.com" in page.inner_text("p.intro")
    assert len(messages_to(sesame, "rea@example.com")) == 1, "Reload must not send a second code"

    enter_code(page, code)  # the code already in the inbox still works
    page.wait_for_selector("a#skip")
    page.click("a#skip")
    assert query_of(wait_arrival(page, app))["state"] == "st-reload"

    # Back from the application: a page that says the sign-in is done and continues.
    page.go_back()
    page.wait_for_selector("h1")
    assert page.inner_text("h1") == text("en", "signed_in_heading"), page.inner_text("main")
    shot(page, "hosted-back-after-sign-in")
    page.click("a.button.primary")
    page.wait_for_url(lambda url: urlsplit(url).path == "/callback")
    assert len(app.arrivals()) == 2 and query_of(app.arrivals()[1])["state"] == "st-reload"

    # "Not now" is remembered for this person in this browser: no offer at the next code login.
    page.goto(f"{server(sesame)}/v2/logout")
    page.click("#logout-confirm")
    page.wait_for_selector("text=" + text("en", "signed_out_heading"))
    app.hits.clear()
    page.goto(authorize_url(sesame, pkce()[1], state="st-again", redirect_uri=callback))
    enter_code(page, ask_for_code(page, sesame, "rea@example.com"))
    assert query_of(wait_arrival(page, app))["state"] == "st-again"
    context.close()


def test_reload_on_the_link_waiting_page_sends_no_second_link(sesame, browser, app):
    context, waiting, verifier, callback = open_authorize(sesame, browser, app, "st-link-reload")
    match = ask_for_link(waiting, "rel@example.com")
    waiting.reload()
    waiting.wait_for_selector("#match-code")
    assert waiting.inner_text("#match-code").strip() == match
    assert len(messages_to(sesame, "rel@example.com")) == 1, "Reload must not send a second link"

    tab = context.new_page()
    tab.goto(sesame.last_message("rel@example.com")["link"])
    tab.locator("button.primary", has_text=text("en", "confirm_button")).click()
    assert query_of(wait_arrival(tab, app))["state"] == "st-link-reload"

    # The waiting page, reloaded (or reached by Back) after the sign-in, offers to continue.
    waiting.reload()
    waiting.wait_for_selector("h1")
    assert waiting.inner_text("h1") == text("en", "signed_in_heading")
    context.close()


def test_sms_code_page_reload_grouped_code_and_wording(sesame, browser, app):
    context, page, verifier, callback = open_authorize(sesame, browser, app, "st-sms", connection="sms")
    number = "+447700900456"
    code = ask_for_code(page, sesame, number)
    assert page.inner_text(".links a.link") == text("en", "different_number")
    page.reload()
    page.wait_for_selector("input#otp")
    assert len(messages_to(sesame, number)) == 1, "Reload must not send a second text"

    # Typed as people copy it from a message: spaces and dashes are ignored on the page.
    enter_code(page, f"{code[:3]} {code[3:]}".replace(" ", " - ", 1))
    page.wait_for_selector("a#skip")
    page.click("a#skip")
    assert query_of(wait_arrival(page, app))["state"] == "st-sms"
    context.close()


# -- 12. a superseded code is not called a typo -------------------------------
def test_a_code_replaced_by_a_newer_one_says_so(sesame, browser, app):
    context, page, verifier, callback = open_authorize(sesame, browser, app, "st-newer")
    first = ask_for_code(page, sesame, "sup@example.com")
    page.click("button.link")  # "Send a new code"
    page.wait_for_selector("p.notice")
    newest = sesame.last_code("sup@example.com")
    assert newest != first
    enter_code(page, first)
    page.wait_for_selector("#alert:not(:empty)")
    assert page.inner_text("#alert") == text("en", "code_superseded")
    enter_code(page, newest)
    page.wait_for_selector("a#skip")
    context.close()


# -- 13. tab title, favicon ------------------------------------------------------
def test_title_is_escaped_once_and_the_page_has_a_favicon(sesame, browser):
    shop = sesame.cli_json("admin", "apps", "create", "--name", "Ben & Jerry's", "--type", "spa",
                           "--callback", CALLBACK)
    context = browser.new_context()
    page = context.new_page()
    page.goto(authorize_url(sesame, pkce()[1], client_id=shop["client_id"]))
    assert page.title() == "Sign in to Ben & Jerry's"
    icon = page.get_attribute("link[rel=icon]", "href")
    answer = requests.get(server(sesame) + icon, timeout=10)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    context.close()


# -- 14. every language, right to left ---------------------------------------------
def test_every_locale_file_has_exactly_the_english_keys():
    english = set(strings("en"))
    for file in sorted(LOCALES.glob("*.json")):
        keys = set(json.loads(file.read_text()))
        assert keys == english, f"{file.name}: missing {sorted(english - keys)}, extra {sorted(keys - english)}"


def test_the_arabic_page_is_laid_out_right_to_left(sesame, browser):
    context = browser.new_context()
    page = context.new_page()
    page.goto(authorize_url(sesame, pkce()[1], ui_locales="ar"))
    assert page.get_attribute("html", "dir") == "rtl" and page.get_attribute("html", "lang") == "ar"
    assert page.inner_text("h1") == text("ar", "login_heading", app=APP)
    label = page.locator("label[for=username]").evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e); const t = r.getBoundingClientRect(); "
        "const b = e.getBoundingClientRect(); return [t.left - b.left, b.right - t.right]; }")
    assert label[1] < 1 < label[0], f"the label starts at the right edge: {label}"
    page.fill("#username", "ar@example.com")
    page.click("button[name=send][value=code]")
    page.wait_for_selector("#otp")
    assert page.get_attribute("html", "dir") == "rtl"
    resend = page.locator(".links button.link").bounding_box()
    other = page.locator(".links a.link").bounding_box()
    assert resend["x"] > other["x"], f"the first link is on the right: {resend} {other}"
    shot(page, "hosted-code-ar")
    context.close()


@pytest.mark.parametrize("language", ["ja", "pt-BR", "it", "nl", "pl"])
def test_the_new_languages_show_and_still_send_an_email(sesame, browser, language):
    context = browser.new_context()
    page = context.new_page()
    page.goto(authorize_url(sesame, pkce()[1], ui_locales=language))
    assert page.get_attribute("html", "lang").lower() == language.lower()
    assert page.inner_text("h1") == text(language, "login_heading", app=APP)
    code = ask_for_code(page, sesame, f"{language.lower()}@example.com")
    assert code.isdigit(), "the message carries a code in a language it has"
    assert page.inner_text("h1") == text(language, "code_heading")
    context.close()
