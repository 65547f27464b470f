// The Activity page: the activities over time by status, the list 25 at a time, and an activity's detail with
// approve and reject.

import { query, post, activity } from "./api.js";
import { $, el, table, wrapped, facts, say, when, code, clickable, button, Pager } from "./ui.js";
import { drawn, legend, stackedColumns } from "./charts.js";
import { names, loadNames, nameOf, named, UUID } from "./names.js";

const short = (s, prefix) => s.replace(prefix, "");
// denied: refused by the policy engine (permission denied), as opposed to failed while executing.
const denied = (a) => a.status === "ACTIVITY_STATUS_FAILED" && a.failure?.code === 7;
const submitter = (a) => a.votes?.[0] && (a.votes[0].user?.userName || nameOf(a.votes[0].userId));
// via is the client an activity came through, as its request named it in X-Sigil-Client (Sigil's header, read back by
// list_activity_clients): "mcp/actions_enter" is sigil mcp's tool actions_enter. Other clients name none.
const via = (client) => {
  if (!client) return "";
  const [kind, ...rest] = client.split("/");
  return kind === "mcp" ? `MCP · ${rest.join("/") || "?"}` : client;
};
async function clientsOf(ids) {
  if (!ids.length) return new Map();
  const { activityClients } = await query("list_activity_clients", { activityIds: ids });
  return new Map(activityClients.map((c) => [c.activityId, c.client]));
}

export const activityPager = new Pager("activities", () => {
  $("activity-detail").hidden = true;
  return loadActivities();
});

export async function loadActivities() {
  const [{ activities: items }] = await Promise.all([query("list_activities", { paginationOptions: activityPager.options }), loadNames()]);
  const clients = await clientsOf(activityPager.visible(items).map((a) => a.id));
  const activities = activityPager.page(items, (a) => a.id);
  const rows = table($("activities"), ["When", "Type", "Status", "By", "Via", "Reason"], activities.map((a) => [
    when(a.createdAt), short(a.type, "ACTIVITY_TYPE_"), denied(a) ? "DENIED" : short(a.status, "ACTIVITY_STATUS_"),
    submitter(a) || "", via(clients.get(a.id)), a.failure ? named(a.failure.message.replace(/^You don't have sufficient permissions to take this action: /, "")) : "",
  ]));
  rows.forEach((tr, i) => {
    tr.dataset.activityId = activities[i].id;
    tr.classList.toggle("denied", denied(activities[i]));
    clickable(tr, () => showActivity(activities[i].id));
  });
}

// The activity chart: the latest activities (up to 400) by status over time, in at most 24 columns; denials are red
// and at the foot of each column.
const STATUSES = [
  { key: "denied", label: "Denied" }, { key: "failed", label: "Failed" }, { key: "rejected", label: "Rejected" },
  { key: "consensus", label: "Waiting for approvals" }, { key: "completed", label: "Completed" }, { key: "other", label: "In progress" },
];
const BUCKETS = [1, 5, 15, 60, 360, 1440].map((m) => m * 60000);

function statusKey(a) {
  if (denied(a)) return "denied";
  return { ACTIVITY_STATUS_FAILED: "failed", ACTIVITY_STATUS_REJECTED: "rejected", ACTIVITY_STATUS_CONSENSUS_NEEDED: "consensus",
    ACTIVITY_STATUS_COMPLETED: "completed" }[a.status] || "other";
}

async function recentActivities(pages = 4) {
  const all = [];
  for (let i = 0; i < pages; i++) {
    const after = all.length ? all[all.length - 1].id : "";
    const { activities } = await query("list_activities", { paginationOptions: { limit: "100", ...(after && { after }) } });
    all.push(...activities);
    if (activities.length < 100) break;
  }
  return all;
}

export async function loadActivityChart() {
  const list = await recentActivities();
  const now = Date.now();
  const since = Math.min(now - 3600000, ...list.map((a) => Number(a.createdAt.seconds) * 1000));
  const size = BUCKETS.find((b) => (now - since) / b <= 24) || BUCKETS[BUCKETS.length - 1];
  const count = Math.min(24, Math.ceil((now - since) / size));
  const start = now - count * size;
  const fmt = size >= 86400000 ? { month: "short", day: "numeric" } : { hour: "2-digit", minute: "2-digit" };
  const buckets = Array.from({ length: count }, (_, i) => ({ label: new Date(start + i * size).toLocaleString([], fmt), counts: {} }));
  for (const a of list) {
    const i = Math.floor((Number(a.createdAt.seconds) * 1000 - start) / size);
    if (i < 0 || i >= count) continue;
    const k = statusKey(a);
    buckets[i].counts[k] = (buckets[i].counts[k] || 0) + 1;
  }
  const totals = Object.fromEntries(STATUSES.map((s) => [s.key, list.filter((a) => statusKey(a) === s.key).length]));
  const series = STATUSES.filter((s) => totals[s.key]);
  const label = `${list.length} activities since ${new Date(start).toLocaleString()}: ` + series.map((s) => `${totals[s.key]} ${s.label.toLowerCase()}`).join(", ");
  $("activity-summary").replaceChildren(`${list.length} activities since ${new Date(start).toLocaleString()}`,
    ...(totals.denied ? [", ", el("strong", { className: "bad" }, `${totals.denied} denied`)] : [", none denied"]));
  $("activity-legend").replaceChildren(legend(series));
  drawn($("activity-chart"), (width) => stackedColumns(width, { buckets, series, label }));
}

// showActivity shows who asked for an activity, what it asked, what came of it — the failure's reason and what each
// policy decided, by name; one waiting for consensus can be approved or rejected here.
export async function showActivity(id) {
  const [{ activity: a }, { policyEvaluations }, clients] = await Promise.all([
    query("get_activity", { activityId: id }), query("get_policy_evaluations", { activityId: id }), clientsOf([id]), loadNames()]);
  const outcomes = policyEvaluations.flatMap((ev) => ev.policyEvaluations.map((p) => [
    nameOf(p.policyId), p.outcome.replace("OUTCOME_", "").toLowerCase(), p.error ? named(p.error) : ""]));
  const decided = el("table", { className: "outcomes" });
  table(decided, ["Policy", "Outcome", "Error"], outcomes);
  const pretty = (label, v) => el("details", {}, el("summary", {}, label), el("pre", {}, JSON.stringify(v, null, 2)));
  // The ids the intent and result name, by name: what the activity was about.
  const mentioned = [...new Set(JSON.stringify([a.intent, a.result]).match(UUID) || [])].filter((x) => names.has(x) && x !== id);
  const children = [el("h2", {}, "Activity"), facts([
    ["Type", a.type],
    ["Status", denied(a) ? "DENIED by policy" : short(a.status, "ACTIVITY_STATUS_")],
    ["By", submitter(a) || ""],
    ...(clients.get(id) ? [["Via", via(clients.get(id))]] : []),
    ["Created", when(a.createdAt)],
    ["Votes", (a.votes || []).map((v) => `${v.user?.userName || nameOf(v.userId)}: ${short(v.selection, "VOTE_SELECTION_").toLowerCase()}`).join(", ")],
    ...(a.failure ? [["Reason", named(a.failure.message)]] : []),
    ...(mentioned.length ? [["About", mentioned.map((x) => `${names.get(x).kind} ${names.get(x).name}`).join(", ")]] : []),
    ["ID", code(a.id)],
  ])];
  if (outcomes.length) children.push(el("h3", {}, "Policies"), wrapped(decided));
  children.push(pretty("Intent", a.intent));
  if (a.result && Object.keys(a.result).length) children.push(pretty("Result", a.result));
  if (a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED") children.push(voteButtons(a));
  const card = $("activity-detail");
  card.replaceChildren(...children);
  card.hidden = false;
  card.scrollIntoView({ block: "nearest" });
}

function voteButtons(a) {
  const vote = (label, type, path) => {
    const b = button(label, async () => {
      await post("/public/v1/submit/" + path, activity(type, { fingerprint: a.fingerprint }));
      await loadActivities();
      say(label === "Approve" ? "Approved" : "Rejected");
      await showActivity(a.id);
    });
    b.disabled = label === "Approve" ? !a.canApprove : !a.canReject;
    return b;
  };
  return el("div", { className: "row" }, vote("Approve", "APPROVE_ACTIVITY", "approve_activity"), vote("Reject", "REJECT_ACTIVITY", "reject_activity"));
}
