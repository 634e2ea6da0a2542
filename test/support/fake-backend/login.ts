// The browser sign-in endpoints `Cursor.auth.login` uses (docs/fake-cursor-backend-protocol.md §4.2): the login page
// (`GET /loginDeepControl`, when CURSOR_WEBSITE_URL points here), `POST /auth/poll`, and the two DashboardService
// calls that mint the key (`CreateUserApiKey`, `GetMe`). The test plays the browser through the control API.

import { createHash, randomBytes } from "node:crypto";
import { errorJson, json, type Reply } from "./rest.ts";
import { ProtoWriter, readFields, utf8Decode, utf8Encode, WIRE_LEN } from "./wire.ts";

/** What the browser step ends with: nothing yet, success, the user refused, the login page timed out. */
export type LoginOutcome = "pending" | "done" | "denied" | "expired";

export interface LoginAttempt {
	uuid: string;
	/** From the login page's URL, when the test (or a browser) opened it; checked against the verifier. */
	challenge?: string;
	outcome: LoginOutcome;
	polls: number;
	/** Set when the poll released the session tokens. */
	accessToken?: string;
}

export interface MintedKey {
	name: string;
	/** `expires_at` as the SDK sent it (epoch ms). */
	expiresAtMs: number | null;
	key: string;
	accessToken: string;
}

export interface LoginBehaviour {
	/** The account email GetMe reports ("" = none). */
	email: string;
	/** When set, CreateUserApiKey answers this Connect error status (e.g. 403: the team forbids user keys). */
	mintStatus: number | null;
}

const CREATE_KEY = "/aiserver.v1.DashboardService/CreateUserApiKey";
const GET_ME = "/aiserver.v1.DashboardService/GetMe";

function base64url(bytes: Buffer): string {
	return bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
}

function proto(body: Uint8Array): Reply {
	return { status: 200, contentType: "application/proto", body };
}

export class FakeLogins {
	attempts: LoginAttempt[] = [];
	minted: MintedKey[] = [];
	behaviour: LoginBehaviour = { email: "signed-in@example.com", mintStatus: null };

	private attempt(uuid: string): LoginAttempt {
		let found = this.attempts.find((a) => a.uuid === uuid);
		if (!found) {
			found = { uuid, outcome: "pending", polls: 0 };
			this.attempts.push(found);
		}
		return found;
	}

	/** The browser step: `uuid` (default: the latest attempt) ends with `outcome`. */
	settle(outcome: LoginOutcome, uuid?: string): LoginAttempt | undefined {
		const target = uuid ? this.attempt(uuid) : this.attempts.at(-1);
		if (target) target.outcome = outcome;
		return target;
	}

	/** Answers the sign-in routes; undefined for any other request. */
	reply(method: string, pathname: string, query: URLSearchParams, body: Uint8Array, bearer: string | null) {
		if (method === "GET" && pathname === "/loginDeepControl") {
			const uuid = query.get("uuid") ?? "";
			const challenge = query.get("challenge") ?? undefined;
			this.attempt(uuid).challenge = challenge;
			return { status: 200, contentType: "text/html", body: "<p>Fake Cursor login page</p>" } satisfies Reply;
		}
		if (method === "POST" && pathname === "/auth/poll") return this.poll(body);
		if (method === "POST" && pathname === CREATE_KEY) return this.mint(body, bearer);
		if (method === "POST" && pathname === GET_ME) {
			const writer = new ProtoWriter();
			if (this.behaviour.email) writer.lengthDelimited(3, utf8Encode(this.behaviour.email));
			return proto(writer.finish());
		}
		return undefined;
	}

	private poll(body: Uint8Array): Reply {
		let parsed: { uuid?: unknown; verifier?: unknown };
		try {
			parsed = JSON.parse(utf8Decode(body)) as typeof parsed;
		} catch {
			return errorJson(400, "invalid_argument", "fake backend: poll body is not JSON");
		}
		if (typeof parsed.uuid !== "string" || typeof parsed.verifier !== "string") {
			return errorJson(400, "invalid_argument", "fake backend: poll needs uuid and verifier");
		}
		const attempt = this.attempt(parsed.uuid);
		attempt.polls++;
		if (attempt.outcome === "pending") return { status: 404, contentType: "text/plain", body: "Not found" };
		if (attempt.outcome === "denied") return errorJson(403, "permission_denied", "fake backend: login denied");
		if (attempt.outcome === "expired") return errorJson(410, "failed_precondition", "fake backend: login expired");
		const challenge = base64url(createHash("sha256").update(parsed.verifier).digest());
		if (attempt.challenge && attempt.challenge !== challenge) {
			return errorJson(403, "permission_denied", "fake backend: verifier does not match the challenge");
		}
		if (attempt.accessToken) return { status: 404, contentType: "text/plain", body: "Not found" }; // released once
		attempt.accessToken = `login-access-${base64url(randomBytes(9))}`;
		return json(200, { accessToken: attempt.accessToken, refreshToken: "login-refresh-unused" });
	}

	private mint(body: Uint8Array, bearer: string | null): Reply {
		if (!bearer || !this.attempts.some((a) => a.accessToken === bearer)) {
			return errorJson(401, "unauthenticated", "fake backend: not a login session");
		}
		if (this.behaviour.mintStatus) {
			return errorJson(this.behaviour.mintStatus, "permission_denied", "user API keys are disabled for this team");
		}
		let name = "";
		let expiresAtMs: number | null = null;
		for (const field of readFields(body)) {
			if (field.fieldNo === 1 && field.wireType === WIRE_LEN && field.data) name = utf8Decode(field.data);
			if (field.fieldNo === 3 && field.varint !== undefined) expiresAtMs = Number(field.varint);
		}
		const key = `key_minted_${base64url(randomBytes(12))}`;
		this.minted.push({ name, expiresAtMs, key, accessToken: bearer });
		return proto(new ProtoWriter().lengthDelimited(1, utf8Encode(key)).finish());
	}

	view() {
		return { attempts: this.attempts, minted: this.minted, behaviour: this.behaviour };
	}

	reset(): void {
		this.attempts = [];
		this.minted = [];
		this.behaviour = { email: "signed-in@example.com", mintStatus: null };
	}
}
