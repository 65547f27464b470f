// build bundles the app with esbuild into dist/. The alias is the one change a wallet-kit app makes for Sigil: every
// import of @turnkey/crypto, the kit's own included, gets @sigil/turnkey-crypto, which checks bundles and tokens
// against the Sigil deployment's keys (pinned in it beforehand by sigil-turnkey-crypto-pin).
import * as esbuild from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

export async function build(outdir = here("./dist")) {
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    entryPoints: [here("./src/main.jsx")],
    outdir,
    bundle: true,
    format: "esm",
    jsx: "automatic",
    minify: true,
    sourcemap: true,
    alias: { "@turnkey/crypto": "@sigil/turnkey-crypto" },
    define: { "process.env.NODE_ENV": '"production"' },
    absWorkingDir: here("."),
    logLevel: "warning",
  });
  for (const page of ["index.html", "oauth-callback.html"]) await copyFile(here(`./${page}`), `${outdir}/${page}`);
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`built ${await build()}`);
}
