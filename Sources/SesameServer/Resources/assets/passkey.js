"use strict";
// Passkey sign-in on the hosted page: asks /authorize/passkey/challenge for a challenge, lets
// the browser answer it (as autofill in the address field where the browser offers that, or
// from the button), and posts the answer to /authorize/passkey like a form.
(() => {
  const form = document.getElementById("passkey-form");
  const button = document.getElementById("passkey-button");
  const alert = document.getElementById("alert");
  if (!form || !button || !window.PublicKeyCredential || !window.SesameWebAuthn) return;
  const {decode, encode, fields, post} = window.SesameWebAuthn;
  const credentialJSON = credential => {
    const r = credential.response;
    return {id: credential.id, rawId: encode(credential.rawId), type: credential.type,
            authenticatorAttachment: credential.authenticatorAttachment,
            response: {clientDataJSON: encode(r.clientDataJSON), authenticatorData: encode(r.authenticatorData),
                       signature: encode(r.signature), userHandle: r.userHandle ? encode(r.userHandle) : null},
            clientExtensionResults: credential.getClientExtensionResults()};
  };
  let pending = null;
  async function signIn(mediation) {
    if (pending) pending.abort();
    const controller = new AbortController();
    pending = controller;
    const challenge = await post("/authorize/passkey/challenge", fields(form), form.dataset.failed);
    const o = challenge.authn_params_public_key;
    const publicKey = {...o, challenge: decode(o.challenge),
                       allowCredentials: (o.allowCredentials || []).map(c => ({...c, id: decode(c.id)}))};
    const options = {publicKey, signal: controller.signal};
    if (mediation) options.mediation = mediation;
    const credential = await navigator.credentials.get(options);
    form.elements.auth_session.value = challenge.auth_session;
    form.elements.authn_response.value = JSON.stringify(credentialJSON(credential));
    form.submit();
  }
  const report = error => {
    if (error.name === "AbortError") return;
    alert.textContent = error.name === "NotAllowedError" ? form.dataset.cancelled : (error.message || form.dataset.failed);
    alert.focus();
  };
  button.hidden = false;
  button.addEventListener("click", () => signIn().catch(report));
  // connection=passkey: the application asked for a passkey first.
  if (form.dataset.preferred) button.focus();
  if (PublicKeyCredential.isConditionalMediationAvailable) {
    PublicKeyCredential.isConditionalMediationAvailable()
      .then(available => { if (available) signIn("conditional").catch(() => {}); });
  }
})();
