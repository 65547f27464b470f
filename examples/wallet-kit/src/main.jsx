// A wallet-kit app against Sigil: Turnkey's React wallet kit, unmodified, with its configuration pointed at Sigil's
// auth proxy and coordinator, and its export and import screens at Sigil's frames (exportIframeUrl, importIframeUrl).
// Nothing here is specific to Sigil: the only change is the bundler alias in build.mjs. The page reads the servers'
// addresses from /config.json (serve.mjs writes it from the stack's bootstrap.json).
import { createRoot } from "react-dom/client";
import { TurnkeyProvider } from "@turnkey/react-wallet-kit";
import "@turnkey/react-wallet-kit/styles.css";
import { App } from "./App.jsx";

const config = await (await fetch("/config.json")).json();

createRoot(document.getElementById("root")).render(
  <TurnkeyProvider
    config={{
      apiBaseUrl: config.coordinatorUrl,
      authProxyUrl: config.authProxyUrl,
      authProxyConfigId: config.authProxyConfigId,
      organizationId: config.organizationId,
      exportIframeUrl: `${config.framesUrl}/export`,
      importIframeUrl: `${config.framesUrl}/import`,
    }}
    callbacks={{ onError: (err) => console.error("wallet kit:", err) }}
  >
    <App framesUrl={config.framesUrl} />
  </TurnkeyProvider>,
);
