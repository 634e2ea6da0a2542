// The third-party half of the bridge's MCP server (src/bridge/server.ts): the MCP SDK, its Hono middleware, Hono and
// Hono's Node adapter, statically imported like every package we bundle. It is most of dist/index.js's code, and
// evaluating it (zod schemas, Hono routers) is work a Pi start does not need: the bridge asks for it through
// `mcpVendor()`, and build/bundle.ts makes dist/index.js evaluate these modules on that first call (see
// `lazyMcpVendor` there). Run from source (tests), they are evaluated when this module is.
import { createAdaptorServer } from "@hono/node-server";
import { localhostHostValidation, localhostOriginValidation } from "@modelcontextprotocol/hono";
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { Hono } from "hono";

const vendor = {
	createAdaptorServer,
	localhostHostValidation,
	localhostOriginValidation,
	Server,
	WebStandardStreamableHTTPServerTransport,
	Hono,
} as const;

export type McpVendor = typeof vendor;

export function mcpVendor(): McpVendor {
	return vendor;
}
