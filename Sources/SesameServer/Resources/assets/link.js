"use strict";
// The page that waits for a magic link: asks /authorize/link/status every two seconds and,
// once the link is confirmed on any device, submits the form that signs this browser in.
(() => {
  const form = document.getElementById("link-form");
  const status = document.getElementById("link-status");
  if (!form || !status) return;
  const stop = text => { status.textContent = text; clearInterval(timer); };
  const poll = async () => {
    const response = await fetch("/authorize/link/status", {cache: "no-store"});
    if (!response.ok) return;
    const answer = await response.json();
    if (answer.status === "approved") { clearInterval(timer); form.submit(); }
    else if (answer.status === "denied") stop(form.dataset.denied);
    else if (answer.status === "completed") stop(form.dataset.elsewhere);
    else if (answer.status === "expired") stop(form.dataset.expired);
  };
  const timer = setInterval(() => poll().catch(() => {}), 2000);
})();
