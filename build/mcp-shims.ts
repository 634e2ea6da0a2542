// Stands in for `@modelcontextprotocol/server/_shims` in dist/index.js (see build/bundle.ts). The MCP SDK's Node shim
// brings Ajv (a fifth of the bundle) and builds an Ajv instance for every MCP `Server`, only to validate elicitation
// answers (`Server.elicitInput`) and `fromJsonSchema` schemas: the bridge serves tools and uses neither.
export { default as process } from "node:process";

export class DefaultJsonSchemaValidator {
	getValidator(): never {
		throw new Error("pi-cursor-sdk's MCP bridge does not validate JSON Schema (no elicitation, no fromJsonSchema)");
	}
}
