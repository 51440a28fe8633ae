"use strict";
// The offer after a code or link login: "Create a passkey" asks for creation options, lets the
// browser make the passkey, posts it to /authorize/passkey/enroll, then continues to the
// application exactly as "Not now" does.
(() => {
  const form = document.getElementById("enroll-form");
  const button = document.getElementById("enroll-button");
  const alert = document.getElementById("alert");
  const status = document.getElementById("enroll-status");
  if (!form || !button || !window.PublicKeyCredential || !window.SesameWebAuthn) return;
  const {decode, encode, fields, post} = window.SesameWebAuthn;
  async function create() {
    button.disabled = true;
    const challenge = await post("/authorize/passkey/enroll/options", fields(form), form.dataset.failed);
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
    await post("/authorize/passkey/enroll", {...fields(form), auth_session: challenge.auth_session,
                                             authn_response: JSON.stringify(json)}, form.dataset.failed);
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
