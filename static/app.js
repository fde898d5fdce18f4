// auditscope's only script: copy-link buttons, highlight scrolling and two
// form niceties. The pages work without it; it only adds convenience.
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy]");
    if (btn) {
      ev.preventDefault();
      var url = new URL(btn.getAttribute("data-copy"), window.location.href).toString();
      copyText(url).then(function () { say(btn, "copied"); }, function () {
        // Nothing was copied (plain HTTP on a LAN address has no clipboard
        // API, or the browser refused): say so, and leave the link selected
        // in a box to copy by hand.
        say(btn, "copy failed: select the link");
        showLink(btn, url);
      });
      return;
    }
    var hl = ev.target.closest("[data-highlight-msg]");
    if (hl) {
      ev.preventDefault();
      markQuote(hl.getAttribute("data-highlight-msg"), hl.getAttribute("data-highlight-quote") || "");
    }
  });

  // The explorer's split values belong to the split shown: when another
  // split is chosen, they are not sent (the new split's largest values are).
  document.addEventListener("change", function (ev) {
    var split = ev.target;
    if (split.matches("form[data-testid=pairs-form] select[name=split]")) {
      var shown = split.querySelector("option[selected]");
      split.form.querySelectorAll("[name=values]").forEach(function (values) {
        values.disabled = !shown || split.value !== shown.value;
      });
    }
  });

  // A filter form sends only the fields that are set: an empty field is its
  // default, and the URL people share need not carry it. The fields are
  // disabled just for the submission; back at the page (bfcache), they work.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.matches("form.filters") || form.method.toLowerCase() !== "get") { return; }
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && !el.disabled && el.type !== "select-multiple" && el.type !== "submit" && el.value === "") {
        el.disabled = true;
        el.setAttribute("data-blank", "");
      }
    });
  });
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("[data-blank]").forEach(function (el) {
      el.disabled = false;
      el.removeAttribute("data-blank");
    });
  });

  // A picker's filter field narrows its list as one types; chosen items
  // stay in view. The field is hidden until this script shows it.
  function filterPicker(box) {
    var f = box.querySelector("[data-picker-filter]");
    var q = f ? f.value.trim().toLowerCase() : "";
    var shown = 0, all = 0, chosen = [];
    box.querySelectorAll(".picker-list label").forEach(function (l) {
      var cb = l.querySelector("input");
      all++;
      if (cb.checked) { chosen.push(l.textContent.trim()); }
      var ok = q === "" || cb.checked || l.textContent.toLowerCase().indexOf(q) >= 0;
      l.hidden = !ok;
      if (ok) { shown++; }
    });
    var count = box.querySelector("[data-picker-count]");
    if (count) {
      // The chosen ones by name: in a long list they may be scrolled away.
      var names = chosen.length === 0 ? "none chosen" : "chosen: " + chosen.slice(0, 3).join("; ") + (chosen.length > 3 ? " and " + (chosen.length - 3) + " more" : "");
      count.textContent = names + (q ? " · " + shown + " of " + all + " shown" : "");
    }
  }
  document.querySelectorAll("[data-picker]").forEach(function (box) {
    var f = box.querySelector("[data-picker-filter]");
    if (f) { f.hidden = false; }
    filterPicker(box);
  });
  document.addEventListener("input", function (ev) {
    if (ev.target.matches("[data-picker-filter]")) { filterPicker(ev.target.closest("[data-picker]")); }
  });
  document.addEventListener("change", function (ev) {
    if (ev.target.matches("[data-picker] input[type=checkbox]")) { filterPicker(ev.target.closest("[data-picker]")); }
  });
  // Enter in a filter field filters; it does not send the form.
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && ev.target.matches("[data-picker-filter]")) { ev.preventDefault(); }
  });

  // A table of many rows is one tab stop (its links are tabindex -1): the
  // arrow keys, Home and End move between its rows' links, and Tab leaves.
  document.addEventListener("keydown", function (ev) {
    var keys = ["ArrowDown", "ArrowUp", "Home", "End"];
    var table = ev.target.closest && ev.target.closest("table[data-rows]");
    if (!table || keys.indexOf(ev.key) < 0 || ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    var links = Array.prototype.slice.call(table.querySelectorAll("tbody [data-row-link]"));
    if (!links.length) { return; }
    var i = links.indexOf(ev.target);
    var n = {ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: links.length - 1}[ev.key];
    ev.preventDefault();
    links[Math.max(0, Math.min(links.length - 1, n))].focus();
  });

  // A message link opened afresh: mark the message it names and bring it
  // to the middle of the window.
  function showLinkedMessage() {
    if (window.location.hash.indexOf("#m-") !== 0) { return; }
    var el = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (!el) { return; }
    document.querySelectorAll(".msg.cited").forEach(function (m) { m.classList.remove("cited"); });
    el.classList.add("cited");
    // A message linked to is shown whole: its folded text unfolds.
    el.querySelectorAll("details.fold").forEach(function (d) { d.open = true; });
    el.scrollIntoView({ block: "center" });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showLinkedMessage);
  } else {
    showLinkedMessage();
  }
  window.addEventListener("hashchange", showLinkedMessage);

  // copyText copies text: with the clipboard API where the page may use it
  // (a secure context), else with a selected textarea and execCommand. The
  // promise fails when nothing was copied.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var ta = document.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.style.position = "fixed";
      ta.style.opacity = "0";
      document.body.appendChild(ta);
      ta.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      ta.remove();
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  function say(btn, text) {
    btn.textContent = text;
    setTimeout(function () { btn.textContent = "copy link"; }, 2500);
  }

  // showLink puts the link in a selected text box beside the button.
  function showLink(btn, url) {
    var box = btn.parentNode.querySelector("input.copy-box");
    if (!box) {
      box = document.createElement("input");
      box.className = "copy-box";
      box.setAttribute("readonly", "");
      box.setAttribute("data-testid", "copy-box");
      btn.after(box);
    }
    box.value = url;
    box.focus();
    box.select();
  }

  // markQuote scrolls to a message and marks the quoted text inside it,
  // working on text nodes only so no transcript text is ever parsed as HTML.
  function markQuote(msgID, quote) {
    document.querySelectorAll("mark.hl").forEach(function (m) {
      m.replaceWith(document.createTextNode(m.textContent));
    });
    document.querySelectorAll(".msg.cited").forEach(function (m) { m.classList.remove("cited"); });
    var el = document.getElementById("m-" + msgID);
    if (!el) { return; }
    el.classList.add("cited");
    history.replaceState(null, "", "#m-" + msgID);
    el.scrollIntoView({ block: "center" });
    if (!quote) { return; }
    var walker = document.createTreeWalker(el.querySelector(".body") || el, NodeFilter.SHOW_TEXT);
    var node;
    while ((node = walker.nextNode())) {
      var i = node.nodeValue.indexOf(quote);
      if (i >= 0) {
        var after = node.splitText(i);
        after.splitText(quote.length);
        var mark = document.createElement("mark");
        mark.className = "hl";
        mark.textContent = after.nodeValue;
        after.replaceWith(mark);
        return;
      }
    }
  }

  // Live pages (serve --watch) follow the data: every 2.5 s they ask
  // /api/generation for the data's version and, when it has changed, fetch
  // the page again and put its content in place of the old (no reload).
  // A hidden tab does not ask.
  (function followData() {
    var body = document.body;
    if (!body || !body.hasAttribute("data-live") || !window.fetch) { return; }
    var version = body.getAttribute("data-version");
    var busy = false;
    function refresh(next) {
      return fetch(window.location.href, { cache: "no-store" }).then(function (r) {
        if (!r.ok) { throw new Error(r.status); }
        return r.text();
      }).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var main = doc.querySelector("main");
        if (main) { document.querySelector("main").replaceWith(main); }
        var foot = doc.querySelector("[data-testid=freshness]"), old = document.querySelector("[data-testid=freshness]");
        if (foot && old) { old.replaceWith(foot); }
        version = doc.body.getAttribute("data-version") || next;
        body.setAttribute("data-version", version);
      });
    }
    setInterval(function () {
      if (busy || document.hidden) { return; }
      busy = true;
      fetch("/api/generation", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (g) {
        var next = String(g.version);
        if (next === version) { return; }
        return refresh(next);
      }).catch(function () {}).then(function () { busy = false; });
    }, 2500);
  })();
})();

// Find in the transcript: every message holding the text is marked, the
// current one outlined and brought into view, its folded text unfolded;
// Enter and the buttons move between them. j and k move between messages
// (outside a field). The page works without it: this only finds.
(function () {
  var box = document.querySelector("[data-find]");
  if (!box) { return; }
  var input = box.querySelector("[data-find-input]");
  var count = box.querySelector("[data-find-count]");
  var hits = [], at = -1;
  function messages() { return Array.prototype.slice.call(document.querySelectorAll(".transcript .msg")); }
  function show(i) {
    hits.forEach(function (m) { m.classList.remove("find-current"); });
    if (!hits.length) { return; }
    at = (i + hits.length) % hits.length;
    var m = hits[at];
    m.querySelectorAll("details").forEach(function (d) { d.open = true; });
    m.classList.add("find-current");
    m.scrollIntoView({ block: "center" });
    count.textContent = (at + 1) + " of " + hits.length + " messages";
  }
  function find() {
    var q = input.value.trim().toLowerCase();
    messages().forEach(function (m) { m.classList.remove("find-hit", "find-current"); });
    hits = [];
    at = -1;
    if (!q) { count.textContent = ""; return; }
    hits = messages().filter(function (m) { return m.textContent.toLowerCase().indexOf(q) >= 0; });
    hits.forEach(function (m) { m.classList.add("find-hit"); });
    if (!hits.length) { count.textContent = "no message holds it"; return; }
    show(0);
  }
  input.addEventListener("input", find);
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { ev.preventDefault(); show(ev.shiftKey ? at - 1 : at + 1); }
  });
  box.querySelector("[data-find-next]").addEventListener("click", function () { show(at + 1); });
  box.querySelector("[data-find-prev]").addEventListener("click", function () { show(at - 1); });
  var cur = -1;
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.closest("input, textarea, select")) { return; }
    if (ev.key !== "j" && ev.key !== "k") { return; }
    var ms = messages();
    if (!ms.length) { return; }
    cur = Math.max(0, Math.min(ms.length - 1, cur + (ev.key === "j" ? 1 : -1)));
    ms.forEach(function (m) { m.classList.remove("find-current"); });
    ms[cur].classList.add("find-current");
    ms[cur].scrollIntoView({ block: "start" });
  });
})();
