// The report's only script (inline, allowed by its sha256 in the page's CSP; no network):
// sortable and filterable tables, and the drill-down behind each row of the main tables.
(() => {
  "use strict";
  const source = document.getElementById("drill-data");
  const data = source ? JSON.parse(source.textContent) : { designs: {}, columns: {}, texts: {} };
  const make = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  };
  const shown = (v) =>
    v === null || v === undefined ? "–" : typeof v === "boolean" ? (v ? "TRUE" : "FALSE") : String(v);

  function drillBox(design) {
    const box = make("div", null, "drill-box");
    const n = design.rows.length;
    let head = `${design.label}: ${design.n} call${design.n === 1 ? "" : "s"}, ` +
      `${design.failed} without a usable answer; `;
    head += n < design.n ? `showing ${n} (at most ${data.cap} per design): ` : "all shown: ";
    head += "failed calls first (with their raw answers), then the largest disagreements.";
    box.appendChild(make("p", head, "drill-head"));
    if (design.hide) {
      box.appendChild(make("p", "This task's texts are sensitive: each stays hidden until " +
        "you press its \"show text\" button.", "drill-note"));
    }
    const columns = data.columns[design.kind];
    const status = columns.indexOf("status");
    const table = make("table", null, "drill-table");
    const head_row = table.appendChild(make("thead")).appendChild(make("tr"));
    columns.forEach((c) => head_row.appendChild(make("th", c)));
    const body = table.appendChild(make("tbody"));
    for (const [item, ...rest] of design.rows) {
      const tr = body.appendChild(make("tr"));
      tr.appendChild(make("td", item));
      const text = data.texts[item];
      const cell = tr.appendChild(make("td", null, "text"));
      if (text === undefined) {
        cell.textContent = "–";
      } else if (design.hide) {
        const button = cell.appendChild(make("button", "show text", "reveal"));
        button.type = "button";
        button.addEventListener("click", (event) => {
          event.stopPropagation();
          cell.textContent = text;
        });
      } else {
        cell.textContent = text;
      }
      rest.forEach((v, i) => tr.appendChild(make("td", shown(v), i === rest.length - 1 ? "raw" : "")));
      if (rest[status - 2] !== "ok") tr.className = "failed";
    }
    box.appendChild(table);
    return box;
  }

  function toggle(tr) {
    const next = tr.nextElementSibling;
    if (next && next.classList.contains("drill")) {
      next.remove();
      tr.setAttribute("aria-expanded", "false");
      return;
    }
    const design = data.designs[tr.dataset.drill];
    if (!design) return;
    const row = make("tr", null, "drill");
    const cell = row.appendChild(make("td"));
    cell.colSpan = tr.cells.length;
    cell.appendChild(drillBox(design));
    tr.after(row);
    tr.setAttribute("aria-expanded", "true");
  }

  function closeDrills(body) {
    body.querySelectorAll(":scope > tr.drill").forEach((r) => r.remove());
    body.querySelectorAll(":scope > tr[aria-expanded=true]").forEach((r) =>
      r.setAttribute("aria-expanded", "false"));
  }

  const value = (td) => {
    const t = td.textContent.trim();
    if (t === "–" || t === "") return null;
    const n = Number(t);
    return Number.isNaN(n) ? t.toLowerCase() : n;
  };
  function compare(x, y) {
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;  // empty cells last
    if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
    return x < y ? -1 : x > y ? 1 : 0;
  }

  function sort(table, col, th) {
    const body = table.tBodies[0];
    closeDrills(body);
    const asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll(":scope > thead th").forEach((h) => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = value(a.cells[col]), y = value(b.cells[col]);
      const c = compare(x, y);
      return x === null || y === null ? c : asc ? c : -c;
    });
    rows.forEach((r) => body.appendChild(r));
  }

  function filter(table, query) {
    const body = table.tBodies[0];
    closeDrills(body);
    const q = query.trim().toLowerCase();
    for (const r of body.rows) r.hidden = q !== "" && !r.textContent.toLowerCase().includes(q);
  }

  document.querySelectorAll("table[data-view]").forEach((table) => {
    table.querySelectorAll(":scope > thead th").forEach((th, col) => {
      th.classList.add("sortable");
      th.title = "sort by this column (again: reverse)";
      th.addEventListener("click", () => sort(table, col, th));
    });
    if (table.tBodies[0].rows.length > 5) {
      const input = make("input", null, "filter");
      input.type = "search";
      input.placeholder = "filter rows…";
      input.setAttribute("aria-label", `filter the rows of ${table.dataset.view}`);
      input.addEventListener("input", () => filter(table, input.value));
      (table.closest(".scroll") || table).before(input);
    }
    table.querySelectorAll("tr[data-drill]").forEach((tr) => {
      tr.tabIndex = 0;
      tr.setAttribute("aria-expanded", "false");
      tr.addEventListener("click", () => toggle(tr));
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle(tr);
        }
      });
    });
  });
})();
