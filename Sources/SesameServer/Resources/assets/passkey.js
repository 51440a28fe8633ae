"use strict";
// Passkey sign-in on the hosted page: asks /authorize/passkey/challenge for a challenge, lets
// the browser answer it (as autofill in the address field where the browser offers that, or
// from the button), and posts the answer to /authorize/passkey like a form.
(() => {
  const form = document.getElementById("passkey-form");
  const button = document.getElementById("passkey-button");
  const alert = document.getElementById("alert");
  if (!form || !button || !window.PublicKeyCredential) return;
  const decode = text => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), c => c.charCodeAt(0));
  };
  const encode = buffer =>
    btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
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
    const response = await fetch("/authorize/passkey/challenge", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({client_id: form.elements.client_id.value, redirect_uri: form.elements.redirect_uri.value,
                            csrf_token: form.elements.csrf_token.value}),
    });
    const challenge = await response.json();
    if (!response.ok) throw new Error(challenge.error_description || form.dataset.failed);
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
