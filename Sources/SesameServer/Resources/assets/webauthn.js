"use strict";
// What the hosted page's two passkey scripts share: base64url for WebAuthn's byte fields, the
// page's identifying fields (with its forgery token), and a JSON POST that fails readably.
window.SesameWebAuthn = {
  decode(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), c => c.charCodeAt(0));
  },
  encode(buffer) {
    return btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_")
      .replace(/=+$/, "");
  },
  fields(form) {
    return {client_id: form.elements.client_id.value, redirect_uri: form.elements.redirect_uri.value,
            csrf_token: form.elements.csrf_token.value};
  },
  async post(path, body, failure) {
    const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error_description || failure);
    return answer;
  },
};
