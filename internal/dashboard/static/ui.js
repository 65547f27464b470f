// Page building blocks: elements, tables, the status line, and errors shown where they belong — at the field at
// fault, or beside the button that failed.

export const $ = (id) => document.getElementById(id);

// el makes an element: el("button", { type: "button", className: "primary" }, "Save"). Attributes with a dash
// (data-*, aria-*) are set as attributes, the others as properties.
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) continue;
    if (k.includes("-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...children.filter((c) => c !== undefined && c !== null && c !== false));
  return e;
}

// table fills el with a header row and rows of cells; a cell is text or an element. Each cell carries its column's
// name (data-label), which a narrow screen shows beside it, each row then a block of its own.
export function table(t, head, rows) {
  const tr = (cells, tag) => el("tr", {}, ...cells.map((c, i) => el(tag, { "data-label": tag === "td" ? head[i] : undefined }, c ?? "")));
  t.replaceChildren(tr(head, "th"), ...rows.map((r) => tr(r, "td")));
  return [...t.querySelectorAll("tr")].slice(1);
}

// wrapped puts a table in a horizontally scrolling box, so a wide table never widens the page.
export const wrapped = (t) => el("div", { className: "table-wrap" }, t);

// facts is a definition list of [term, description] pairs; a description is text or an element.
export function facts(pairs) {
  const dl = el("dl", { className: "facts" });
  for (const [k, v] of pairs) dl.append(el("dt", {}, k), el("dd", {}, v ?? ""));
  return dl;
}

// ---- status line: successes only; errors go where they happened ----

let statusTimer;
export function say(text) {
  const s = $("status");
  s.textContent = text;
  s.className = "show";
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => (s.className = ""), 3000);
}

// ---- errors at the field ----

// FieldError is an error the page finds itself in a field, named by its data-param.
export class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

let errorSeq = 0;

export function clearErrors(scope) {
  for (const e of scope.querySelectorAll(".field-error, .form-error")) e.remove();
  for (const f of scope.querySelectorAll("[aria-invalid]")) {
    f.removeAttribute("aria-invalid");
    f.removeAttribute("aria-describedby");
  }
}

// blame finds the field an error is about: the one a FieldError names, or else the field of the scope whose
// data-param (its parameter's name, and other words for it) the message names first — the coordinator's messages
// name the parameter at fault ("parameters.policyName …", "invalid policy condition: …").
function blame(scope, err) {
  const fields = [...scope.querySelectorAll("[data-param]")];
  if (err.field) return fields.find((f) => f.dataset.param.split(" ").includes(err.field)) || null;
  let best = null;
  let at = Infinity;
  for (const f of fields) {
    for (const name of f.dataset.param.split(" ")) {
      const i = err.message.search(new RegExp(`\\b${name}\\b`, "i"));
      if (i >= 0 && i < at) [best, at] = [f, i];
    }
  }
  return best;
}

// showError shows an error at the field of scope it is about, described by it for screen readers, or else beside
// the control that failed (anchor).
export function showError(scope, err, anchor) {
  clearErrors(scope);
  const field = blame(scope, err);
  const msg = el("p", { id: "error-" + ++errorSeq, role: "alert" }, err.message);
  if (field) {
    msg.className = "field-error";
    field.setAttribute("aria-invalid", "true");
    field.setAttribute("aria-describedby", msg.id);
    field.insertAdjacentElement("afterend", msg);
    field.addEventListener("input", () => clearErrors(scope), { once: true });
    field.focus();
    return;
  }
  msg.className = "form-error";
  const place = anchor?.closest(".row") || anchor;
  if (place && scope.contains(place)) place.insertAdjacentElement("afterend", msg);
  else scope.prepend(msg);
}

// busy runs fn with the button disabled; an error shows in scope (the button's form or card by default).
export async function busy(button, fn, scope = button.closest("form, .card, .tab") || document.body) {
  button.disabled = true;
  clearErrors(scope);
  try {
    await fn();
  } catch (e) {
    showError(scope, e, button);
  } finally {
    button.disabled = false;
  }
}

// confirmed makes a button act on a second click only: the first asks, for a few seconds, to confirm.
export function confirmed(button, fn) {
  const label = button.textContent;
  let armed = false;
  let timer;
  button.addEventListener("click", () => {
    if (!armed) {
      armed = true;
      button.textContent = "Confirm: " + label.toLowerCase();
      button.classList.add("danger");
      timer = setTimeout(() => {
        armed = false;
        button.textContent = label;
        button.classList.remove("danger");
      }, 4000);
      return;
    }
    clearTimeout(timer);
    armed = false;
    button.textContent = label;
    button.classList.remove("danger");
    busy(button, fn);
  });
  return button;
}

// ---- lists ----

export const when = (ts) => new Date(Number(ts.seconds) * 1000).toLocaleString();
export const code = (text) => (text ? el("code", {}, text) : "");

// clickable makes a row open something, by mouse or keyboard; an error shows in the row's card.
export function clickable(tr, fn) {
  tr.classList.add("clickable");
  tr.tabIndex = 0;
  const run = () => fn().catch((e) => showError(tr.closest(".card"), e, tr.closest(".table-wrap")));
  tr.addEventListener("click", run);
  tr.addEventListener("keydown", (ev) => ev.key === "Enter" && run());
}

// button makes a button; with confirm, it acts on a second click only (deletions). One that changes something
// (mutates) is hidden where the page is read-only.
export function button(label, fn, { primary = false, confirm = false, mutates = true } = {}) {
  const b = el("button", { type: "button", className: [primary && "primary", mutates && "mutates"].filter(Boolean).join(" ") }, label);
  if (confirm) return confirmed(b, fn);
  b.addEventListener("click", () => busy(b, fn));
  return b;
}

const PAGE = 25;

// Pager pages a list by cursor, 25 at a time: cursors holds the id each page shown starts after ("" for the first),
// and a page asked one item longer tells whether another follows. Its buttons are #NAME-prev and #NAME-next, its
// range #NAME-page, or the elements given (els: { prev, next, range, list }) for a list made on the fly.
export class Pager {
  constructor(name, load, els = null) {
    this.name = name;
    this.load = load;
    this.els = els || { prev: $(name + "-prev"), next: $(name + "-next"), range: $(name + "-page"), list: $(name) };
    this.reset();
    this.els.prev.addEventListener("click", () => this.move(() => this.cursors.pop()));
    this.els.next.addEventListener("click", () => this.move(() => this.cursors.push(this.last)));
  }

  reset() {
    this.cursors = [""];
    this.last = "";
  }

  // options are the paginationOptions of the current page.
  get options() {
    const after = this.cursors[this.cursors.length - 1];
    return { limit: String(PAGE + 1), ...(after && { after }) };
  }

  // visible is the part of a page's items that is shown (the one past it only says there is a next page). A caller
  // that reads more about them reads it before page sets the range, so that the range never names rows not yet shown.
  visible(items) {
    return items.slice(0, PAGE);
  }

  // page keeps a page's items, sets the buttons and the range, and returns the items to show.
  page(items, idOf) {
    const shown = this.visible(items);
    const first = (this.cursors.length - 1) * PAGE;
    this.last = shown.length ? idOf(shown[shown.length - 1]) : "";
    this.els.range.textContent = shown.length ? `${first + 1}–${first + shown.length}` : "None";
    this.els.prev.disabled = this.cursors.length === 1;
    this.els.next.disabled = items.length <= PAGE;
    return shown;
  }

  // pageOf shows the page of a list read whole (a list the API does not page, under its limit).
  pageOf(all, idOf) {
    const after = this.cursors[this.cursors.length - 1];
    const start = after ? all.findIndex((x) => idOf(x) === after) + 1 : 0;
    return this.page(all.slice(start, start + PAGE + 1), idOf);
  }

  move(step) {
    step();
    this.load().catch((e) => showError(this.els.list.closest(".card"), e));
  }
}
