// serve pins the stack's keys, builds the app and serves it with the stack's addresses as /config.json, as
// `sigil demo web` does for the plain example:
//
//   npm start -- --dir ../../.sigil --listen localhost:8086
//
// Passkeys need a host name, not an IP address, as relying party: open http://localhost:8086 (and allow that origin
// in sigil up --allowed-origins, which it is by default).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { fetchDocument, pin } from "@sigil/turnkey-crypto/pin";
import { build } from "./build.mjs";

const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".map": "application/json" };

// start serves the app for the stack in dir on host:port (0: any free port) and returns its URL and a close function.
export async function start({ dir, host = "localhost", port = 8086 }) {
  const boot = JSON.parse(await readFile(join(dir, "bootstrap.json"), "utf8"));
  await pin(await fetchDocument(boot.coordinatorUrl), `${boot.coordinatorUrl}/.well-known/sigil-signer.json`);
  const root = await build();
  const config = JSON.stringify({ coordinatorUrl: boot.coordinatorUrl, authProxyUrl: boot.authProxyUrl,
    authProxyConfigId: boot.authProxyConfigId, organizationId: boot.organizationId, devOutboxUrl: boot.devOutboxUrl,
    framesUrl: boot.framesUrl });
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/config.json") {
      res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" }).end(config);
      return;
    }
    // Every other path is a file of dist/: the OAuth redirect's /oauth-callback, or the app at any path without an
    // extension.
    const name = path === "/oauth-callback" ? "oauth-callback.html" : extname(path) ? normalize(path) : "index.html";
    const file = join(root, name);
    const body = await readFile(file).catch(() => null);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": types[extname(file)] ?? "text/html; charset=utf-8" }).end(body);
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const url = `http://${host}:${server.address().port}`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { dir: { type: "string", default: "../../.sigil" }, listen: { type: "string", default: "localhost:8086" } } });
  const [host, port] = values.listen.split(":");
  const { url } = await start({ dir: values.dir, host, port: Number(port) });
  console.log(`the wallet-kit example serves ${url}`);
}
