"use strict";
// The page that waits for a magic link: asks /authorize/link/status every two seconds and,
// once the link is confirmed on any device, submits the form that signs this browser in. A
// link that died (refused, expired, replaced by a newer one) is said so, with a way to start again.
(() => {
  const form = document.getElementById("link-form");
  const status = document.getElementById("link-status");
  if (!form || !status) return;
  // A refusal or expiry is an error: the number and the button go, the message is announced.
  const stop = text => {
    clearInterval(timer);
    status.textContent = "";
    for (const id of ["match-label", "match-code", "link-form"]) document.getElementById(id)?.setAttribute("hidden", "");
    document.getElementById("link-restart")?.removeAttribute("hidden");
    const alert = document.getElementById("alert");
    alert.textContent = text;
    alert.focus();
  };
  const poll = async () => {
    const response = await fetch("/authorize/link/status", {cache: "no-store"});
    if (!response.ok) return;
    const answer = await response.json();
    if (answer.status === "approved") { clearInterval(timer); form.submit(); }
    else if (answer.status === "denied") stop(form.dataset.denied);
    else if (answer.status === "completed") {
      clearInterval(timer);
      for (const id of ["match-label", "match-code", "link-form"]) document.getElementById(id)?.setAttribute("hidden", "");
      status.textContent = form.dataset.elsewhere;
    }
    else if (answer.status === "expired") {
      stop(answer.reason === "superseded" ? form.dataset.superseded : form.dataset.expired);
    }
  };
  const timer = setInterval(() => poll().catch(() => {}), 2000);
})();
