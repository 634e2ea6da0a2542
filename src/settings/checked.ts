/** A setting's value, or why the value given is invalid and what applies meanwhile (`fallback`: for the footer). */
export type Checked<V extends { readonly ok: true }> =
	| V
	| { readonly ok: false; readonly error: string; readonly fallback: V };
