// The Worker bundle's stand-in for ajv and ajv-formats (wrangler.toml [alias]). ajv compiles
// schemas with `new Function`, which Workers refuse, so it can never run there: the gateway
// validates with the eval-free engine (lib/validation/cfworker-engine.ts) and hands the MCP SDK
// its cfworker validator. Only the names stay, for the modules that import them; using one says why.
function unavailable() {
  throw new Error('ajv is not in the Worker bundle (Workers refuse code generation): use the eval-free validator');
}
export default unavailable;
export { unavailable as Ajv, unavailable as Ajv2019, unavailable as Ajv2020 };
