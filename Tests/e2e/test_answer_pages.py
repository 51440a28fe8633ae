"""The pages that carry a login's answer to the application (`response_mode=form_post` and
`web_message`) in a real Chromium: they speak the login's language, and Back or Reload after
the answer never posts a spent code again nor asks to resubmit a form.

The relying party is a small http.server on 127.0.0.1 (``AppServer``) that records every
request, so a second post is seen, not guessed.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from hosted import (AppServer, ask_for_code, authorize_url, email_of, enter_code, exchange, pkce,
                              server, text, use_callback, wait_arrival)

pytest.importorskip("playwright.sync_api")


@pytest.fixture
def app():
    relying_party = AppServer()
    yield relying_party
    relying_party.server.shutdown()


def without_passkey_offer(sesame) -> None:
    """A code login then answers the application straight from the code's POST."""
    sesame.cli("admin", "connections", "update", "email", "--passkeys", "false")


def sign_in(sesame, page, app, address: str, state: str, **parameters) -> tuple:
    """Signs ``address`` in with a code, answered by form_post; returns the PKCE verifier,
    the callback and the post the application received."""
    callback = use_callback(sesame, app.callback())
    verifier, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, state=state, redirect_uri=callback, response_mode="form_post",
                            **parameters))
    enter_code(page, ask_for_code(page, sesame, address))
    return verifier, callback, wait_arrival(page, app)


def posts(app) -> list:
    return [hit for hit in app.arrivals() if hit["method"] == "POST"]


# -- 1. the answer pages speak the login's language ------------------------
@pytest.mark.parametrize("language", ["fr", "ar"])
def test_form_post_page_speaks_the_login_language(sesame, browser, app, language):
    """With scripts off the page stays up: its title, words and direction are the login's
    (`ui_locales`), and continuing by hand delivers the code."""
    without_passkey_offer(sesame)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    address = f"{language}@example.com"
    callback = use_callback(sesame, app.callback())
    verifier, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, state=f"st-{language}", redirect_uri=callback,
                            response_mode="form_post", ui_locales=language))
    enter_code(page, ask_for_code(page, sesame, address))
    page.wait_for_selector("form[method=post] button[type=submit]")
    assert page.title() == text(language, "answer_title")
    assert page.get_attribute("html", "lang") == language
    assert page.get_attribute("html", "dir") == ("rtl" if language == "ar" else "ltr")
    assert page.inner_text("form p") == text(language, "answer_scripts_off")
    assert page.inner_text("form button") == text(language, "continue")
    assert "Signing in" not in page.content() and "Scripts are off" not in page.content()
    page.click("form button")
    body = {k: v[0] for k, v in parse_qs(wait_arrival(page, app)["body"]).items()}
    assert body["state"] == f"st-{language}"
    assert email_of(sesame, exchange(sesame, body["code"], verifier, redirect_uri=callback)) == address
    context.close()


# -- 2. Back and Reload after the answer -----------------------------------
@pytest.mark.parametrize("passkey_offer", [False, True])
def test_back_after_form_post_does_not_post_a_spent_code_again(sesame, browser, app, passkey_offer):
    # Strand: Back from the application led (at once, or by the signed-in step's "Continue")
    # to the answer page, whose script posted the login's spent state again with a new code,
    # so the application refused it; where the page was the answer to the code's POST, a
    # browser that kept that entry asked to resubmit the form instead.
    if not passkey_offer:
        without_passkey_offer(sesame)
    context = browser.new_context(locale="fr-FR")
    page = context.new_page()
    navigations: list = []
    page.on("request", lambda r: navigations.append((r.method, r.url)) if r.is_navigation_request() else None)
    callback = use_callback(sesame, app.callback())
    verifier, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, state="st-back", redirect_uri=callback, response_mode="form_post"))
    enter_code(page, ask_for_code(page, sesame, "back@example.com"))
    if passkey_offer:
        page.wait_for_selector("a#skip")
        page.click("a#skip")
    body = {k: v[0] for k, v in parse_qs(wait_arrival(page, app)["body"]).items()}
    assert email_of(sesame, exchange(sesame, body["code"], verifier, redirect_uri=callback)) == "back@example.com"

    # Back: Chromium replaced the answer page's entry by the application's (the form was
    # submitted while the page loaded), so Back reaches the step before it, which offers to
    # continue; continuing shows the answer page again. Neither re-sends a form of ours nor
    # posts to the application again.
    signed_in = len(navigations)
    page.go_back(wait_until="load")
    if "/authorize/step" in page.url:
        assert page.inner_text("h1") == text("fr", "signed_in_heading")
        page.click(f"a.button:has-text('{text('fr', 'continue')}')")
    page.wait_for_selector("#done", state="visible")
    assert page.url.startswith(server(sesame) + "/authorize?"), page.url
    assert len(posts(app)) == 1, posts(app)
    assert page.inner_text("#done h1") == text("fr", "signed_in_heading")
    link = page.locator("#done a")
    assert link.inner_text() == text("fr", "answer_continue", site="localhost")
    assert link.get_attribute("href") == app.origin + "/"
    assert not [url for method, url in navigations[signed_in:] if method == "POST"], navigations[signed_in:]

    # Back from there, and Reload, show a next step and post nothing either.
    page.go_back(wait_until="load")
    page.go_forward(wait_until="load")
    page.wait_for_selector("#done", state="visible")
    page.reload(wait_until="load")
    page.wait_for_selector("#done", state="visible")
    assert len(posts(app)) == 1, posts(app)
    page.click("#done a")
    page.wait_for_url(app.origin + "/")
    context.close()


def test_a_new_login_in_the_same_tab_is_posted(sesame, browser, app):
    """The once-per-answer rule is keyed by the login's state: the next login still posts."""
    without_passkey_offer(sesame)
    context = browser.new_context()
    page = context.new_page()
    sign_in(sesame, page, app, "twice@example.com", "st-first")
    verifier, challenge = pkce()
    page.goto(authorize_url(sesame, challenge, state="st-second", redirect_uri=app.callback(),
                            response_mode="form_post"))
    waited = 0
    while len(posts(app)) < 2 and waited < 10000:
        page.wait_for_timeout(100)
        waited += 100
    states = [parse_qs(hit["body"])["state"][0] for hit in posts(app)]
    assert states == ["st-first", "st-second"]
    context.close()
