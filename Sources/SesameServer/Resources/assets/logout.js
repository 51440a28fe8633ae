"use strict";
// Front-channel logout: the page frames each application's logout page; the window's load
// event comes once every frame has loaded, then the browser goes on to the return URL. An
// application that never answers holds it up for a few seconds at most.
(() => {
  const box = document.getElementById("logout-frames");
  if (!box || !box.dataset.continue) return;
  let gone = false;
  const go = () => {
    if (gone) return;
    gone = true;
    window.location.assign(box.dataset.continue);
  };
  window.addEventListener("load", go);
  setTimeout(go, 5000);
})();
