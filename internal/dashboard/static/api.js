// The coordinator's public API, stamped in the page: queries, activities, and the dry run's envelope.

// org is the organization the page shows: the one signed in to (root), or one of its sub-organizations, which the
// parent's credentials may read but not change.
export const state = { coordinator: "", proxy: "", org: "", root: null, stamper: null, config: null, chains: [], refresh: 0 };

export async function post(path, payload, stamper = state.stamper) {
  const body = JSON.stringify(payload);
  const headers = { "Content-Type": "application/json" };
  const [name, value] = await stamper(body);
  headers[name] = value;
  const res = await fetch(state.coordinator + path, { method: "POST", headers, body });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw Object.assign(new Error((data && data.message) || `${res.status} ${res.statusText}`), { status: res.status });
  return data;
}

export const query = (name, fields = {}) => post("/public/v1/query/" + name, { organizationId: state.org, ...fields });

// activity is the envelope of an activity of this organization, as submitted and as the dry run takes it.
export const activity = (type, parameters) => ({ type: "ACTIVITY_TYPE_" + type, timestampMs: String(Date.now()), organizationId: state.org, parameters });

// submit runs an activity and returns its result (beside result.activity, the nested record); one that does not
// complete is an error that says why.
export async function submit(type, path, parameters) {
  const { activity: a } = await post("/public/v1/submit/" + path, activity(type, parameters));
  if (a.status !== "ACTIVITY_STATUS_COMPLETED") {
    throw new Error(`${type} ended ${a.status.replace("ACTIVITY_STATUS_", "").toLowerCase()}` + (a.failure ? `: ${a.failure.message}` : " (more approvals are needed)"));
  }
  return Object.entries(a.result).find(([k]) => k !== "activity")?.[1];
}
