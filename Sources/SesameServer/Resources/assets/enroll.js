"use strict";
// The offer after a code or link login: "Create a passkey" asks for creation options, lets the
// browser make the passkey, posts it to /authorize/passkey/enroll, then continues to the
// application exactly as "Not now" does.
(() => {
  const form = document.getElementById("enroll-form");
  const button = document.getElementById("enroll-button");
  const alert = document.getElementById("alert");
  const status = document.getElementById("enroll-status");
  if (!form || !button || !window.PublicKeyCredential) return;
  const decode = text => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), c => c.charCodeAt(0));
  };
  const encode = buffer =>
    btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const fields = () => ({client_id: form.elements.client_id.value, redirect_uri: form.elements.redirect_uri.value,
                         csrf_token: form.elements.csrf_token.value});
  const post = async (path, body) => {
    const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error_description || form.dataset.failed);
    return answer;
  };
  async function create() {
    button.disabled = true;
    const challenge = await post("/authorize/passkey/enroll/options", fields());
    const o = challenge.authn_params_public_key;
    const publicKey = {...o, challenge: decode(o.challenge), user: {...o.user, id: decode(o.user.id)},
                       excludeCredentials: (o.excludeCredentials || []).map(c => ({...c, id: decode(c.id)}))};
    const credential = await navigator.credentials.create({publicKey});
    const r = credential.response;
    const json = {id: credential.id, rawId: encode(credential.rawId), type: credential.type,
                  authenticatorAttachment: credential.authenticatorAttachment,
                  response: {clientDataJSON: encode(r.clientDataJSON), attestationObject: encode(r.attestationObject),
                             transports: r.getTransports ? r.getTransports() : []},
                  clientExtensionResults: credential.getClientExtensionResults()};
    await post("/authorize/passkey/enroll", {...fields(), auth_session: challenge.auth_session,
                                             authn_response: JSON.stringify(json)});
    status.textContent = form.dataset.created;
    window.location.assign(form.dataset.continue);
  }
  button.hidden = false;
  button.addEventListener("click", () => create().catch(error => {
    button.disabled = false;
    alert.textContent = error.name === "NotAllowedError" ? form.dataset.cancelled : form.dataset.failed;
    alert.focus();
  }));
})();
