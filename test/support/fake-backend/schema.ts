// Hand-resolved protobuf schema for the subset of agent.v1 / aiserver.v1 messages the fake backend speaks.
//
// The descriptors use the SDK's compact format (docs/fake-cursor-backend-protocol.md §13.2), copied from
// @cursor/sdk 1.0.32, except that `#n` references are replaced by message names:
//   "<Message>|<no> <name> <type>[?|*]|…"
// <type> is a scalar code (1 double, 2 float, 3 int64, 4 uint64, 5 int32, 6 fixed64, 7 fixed32, 8 bool,
// 9 string, 12 bytes, 13 uint32, 15 sfixed32, 16 sfixed64, 17 sint32, 18 sint64), `E` for an enum (encoded as a
// varint int32), a message name, or a map `K,V` (V is a scalar code or a message name).
// Fields that are not listed are still decoded, generically, under the key "#<fieldNo>".
// Value, Struct and ListValue (google.protobuf) are mapped to plain JSON by the codec.

const DESCRIPTORS = [
	// ── Server → client ────────────────────────────────────────────────────────────────────────────────────────
	"AgentServerMessage|1 interaction_update InteractionUpdate|2 exec_server_message ExecServerMessage|5 exec_server_control_message ExecServerControlMessage|3 conversation_checkpoint_update ConversationStateStructure|4 kv_server_message KvServerMessage|8 ttft_breakdown TtftBreakdown",
	"InteractionUpdate|1 text_delta TextDeltaUpdate|7 partial_tool_call PartialToolCallUpdate|15 tool_call_delta ToolCallDeltaUpdate|2 tool_call_started ToolCallStartedUpdate|3 tool_call_completed ToolCallCompletedUpdate|4 thinking_delta ThinkingDeltaUpdate|5 thinking_completed ThinkingCompletedUpdate|6 user_message_appended UserMessageAppendedUpdate|8 token_delta TokenDeltaUpdate|9 summary SummaryUpdate|10 summary_started Empty|11 summary_completed SummaryCompletedUpdate|12 shell_output_delta ShellOutputDeltaUpdate|13 heartbeat Empty|14 turn_ended TurnEndedUpdate|16 step_started StepStartedUpdate|17 step_completed StepCompletedUpdate|27 tool_requests_listed ToolRequestsListedUpdate|23 context_injection_state ContextInjectionStateUpdate|25 message_started_at_ms 4?",
	// A steer's fate (`Run.steer`): queued keeps the SDK waiting; delivered, queued_for_next_turn, cancelled and rejected
	// settle it (`complete_delivered`, else `revert_to_followup`).
	"ContextInjectionStateUpdate|1 injection_id 9|2 state ContextInjectionState",
	"ContextInjectionState|1 queued Empty|2 delivered Empty|3 queued_for_next_turn Empty|4 cancelled Empty|5 rejected Empty",
	"Empty",
	"TextDeltaUpdate|1 text 9|2 is_server_notice 8",
	"ToolCallStartedUpdate|1 call_id 9|2 tool_call ToolCall|3 model_call_id 9",
	"ToolCallCompletedUpdate|1 call_id 9|2 tool_call ToolCall|3 model_call_id 9",
	"PartialToolCallUpdate|1 call_id 9|2 tool_call ToolCall|3 args_text_delta 9|4 model_call_id 9",
	"ToolCallDeltaUpdate|1 call_id 9|2 tool_call_delta ToolCallDelta|3 model_call_id 9",
	"ToolCallDelta|1 shell_tool_call_delta ShellToolCallDelta|2 task_tool_call_delta TaskToolCallDelta|3 edit_tool_call_delta EditToolCallDelta",
	"ShellToolCallDelta|1 stdout ShellToolCallStdoutDelta|2 stderr ShellToolCallStderrDelta",
	"ShellToolCallStdoutDelta|1 content 9",
	"ShellToolCallStderrDelta|1 content 9",
	"TaskToolCallDelta|1 interaction_update InteractionUpdate",
	"EditToolCallDelta|1 stream_content_delta 9",
	"ThinkingDeltaUpdate|1 text 9|2 thinking_style E?",
	"ThinkingCompletedUpdate|1 thinking_duration_ms 5",
	"UserMessageAppendedUpdate|1 user_message UserMessage",
	"TokenDeltaUpdate|1 tokens 5",
	"SummaryUpdate|1 summary 9",
	"SummaryCompletedUpdate|1 hook_message 9?|2 failed 8?",
	"ShellOutputDeltaUpdate|1 stdout ShellStreamStdout|2 stderr ShellStreamStderr|3 exit ShellStreamExit|4 start ShellStreamStart",
	"TurnEndedUpdate|1 input_tokens 3?|2 output_tokens 3?|3 cache_read_tokens 3?|4 cache_write_tokens 3?|5 reasoning_tokens 3?",
	"StepStartedUpdate|1 step_id 4",
	"StepCompletedUpdate|1 step_id 4|2 step_duration_ms 3",
	"ToolRequestsListedUpdate|1 call_count 13",
	"TtftBreakdown|1 server_first_token_ms 1|2 pre_stream_setup_ms 1|3 wait_for_first_event_ms 1|4 provider_ttft_ms 1?|5 slow_pool_wait_ms 1",

	// Tool calls (UI descriptions of a call; agent.v1.ToolCall)
	"ToolCall|1 shell_tool_call ShellToolCall|3 delete_tool_call DeleteToolCall|4 glob_tool_call GlobToolCall|5 grep_tool_call GrepToolCall|8 read_tool_call ReadToolCall|12 edit_tool_call EditToolCall|13 ls_tool_call LsToolCall|15 mcp_tool_call McpToolCall|17 create_plan_tool_call CreatePlanToolCall|57 tool_call_id 9?|59 started_at_ms 4?|60 completed_at_ms 4?",
	"ShellToolCall|1 args ShellArgs|2 result ShellResult|3 description 9?",
	"ReadToolCall|1 args ReadToolArgs|2 result ReadToolResult",
	"ReadToolArgs|1 path 9|2 offset 5?|3 limit 5?|5 include_line_numbers 8?",
	"ReadToolResult|1 success ReadToolSuccess|2 error ReadToolError",
	"ReadToolSuccess|1 content 9|6 data 12|9 data_blob_id 12|10 content_blob_id 12|2 is_empty 8|3 exceeded_limit 8|4 total_lines 13|5 file_size 13|7 path 9|11 include_line_numbers 8?|12 related_cursor_rule_paths 9*",
	"ReadToolError|1 error_message 9",
	"EditToolCall|1 args EditArgs|2 result EditResult",
	"EditArgs|1 path 9|6 stream_content 9?",
	"EditResult|1 success EditSuccess|2 file_not_found EditFileNotFound|3 read_permission_denied EditReadPermissionDenied|4 write_permission_denied EditWritePermissionDenied|6 rejected EditRejected|7 error EditError",
	"EditSuccess|1 path 9|3 lines_added 5?|4 lines_removed 5?|5 diff_string 9?|6 before_full_file_content 9?|7 after_full_file_content 9|8 message 9?",
	"EditFileNotFound|1 path 9",
	"EditReadPermissionDenied|1 path 9",
	"EditWritePermissionDenied|1 path 9|2 error 9|3 is_readonly 8",
	"EditRejected|1 path 9|2 reason 9",
	"EditError|1 path 9|2 error 9|5 model_visible_error 9?",
	"McpToolCall|1 args McpArgs|2 result McpToolResult|3 description 9?",
	"McpToolResult|1 success McpSuccess|2 error McpToolError|3 rejected McpRejected|4 permission_denied McpPermissionDenied",
	"McpToolError|1 error 9|2 read_tool_def_reminder 9",
	"DeleteToolCall|1 args DeleteArgs|2 result DeleteResult",
	"LsToolCall|1 args LsArgs|2 result LsResult",
	"GrepToolCall|1 args GrepArgs|2 result GrepResult",
	"GlobToolCall|1 args GlobToolArgs",
	"GlobToolArgs|1 target_directory 9?|2 glob_pattern 9",
	// The SDK passes only `plan` on (its createPlan args); name and overview are what Cursor also sends.
	"CreatePlanToolCall|1 args CreatePlanArgs|2 result CreatePlanResult",
	"CreatePlanArgs|1 plan 9|3 overview 9|4 name 9|5 is_project 8",
	"CreatePlanResult|1 success Empty|2 error CreatePlanError|3 plan_uri 9",
	"CreatePlanError|1 error 9",

	// Exec requests
	"ExecServerMessage|1 id 13|15 exec_id 9|57 machine_id 9?|2 shell_args ShellArgs|3 write_args WriteArgs|4 delete_args DeleteArgs|5 grep_args GrepArgs|7 read_args ReadArgs|29 redacted_read_args ReadArgs|8 ls_args LsArgs|9 diagnostics_args DiagnosticsArgs|10 request_context_args RequestContextArgs|11 mcp_args McpArgs|14 shell_stream_args ShellArgs|52 mini_swe_agent_bash_args ShellArgs|55 accept_hook_additional_contexts 8?",
	"ExecServerControlMessage|1 abort ExecServerAbort",
	"ExecServerAbort|1 id 13",
	"ShellArgs|1 command 9|2 working_directory 9|3 timeout 5|4 tool_call_id 9|5 simple_commands 9*|6 has_input_redirect 8|7 has_output_redirect 8|8 parsing_result ShellCommandParsingResult|9 requested_sandbox_policy SandboxPolicy?|10 file_output_threshold_bytes 4?|11 is_background 8|12 skip_approval 8|13 timeout_behavior E|14 hard_timeout 5?|15 description 9?|17 close_stdin 8|21 conversation_id 9?|22 admin_command_denylist 9*|23 request_id 9?|24 secret_scope_id 9?",
	"ShellCommandParsingResult|1 parsing_failed 8|3 has_redirects 8|4 has_command_substitution 8|5 all_redirects_are_dev_null 8?",
	"SandboxPolicy|1 type E|2 network_access 8?|3 additional_readwrite_paths 9*|4 additional_readonly_paths 9*|5 debug_output_dir 9?|7 disable_tmp_write 8?|8 allowlist_escalated 8?|9 enable_shared_build_cache 8?|11 network_policy_strict 8?|12 capture_denies 8?|13 skip_statsig_defaults 8?|15 additional_read_paths 9*",
	"ReadArgs|1 path 9|2 tool_call_id 9|4 offset 5?|5 limit 13?|6 encoding_hint 9?",
	"WriteArgs|1 path 9|2 file_text 9|3 tool_call_id 9|4 return_file_content_after_write 8|5 file_bytes 12|6 encoding_hint 9?",
	"DeleteArgs|1 path 9|2 tool_call_id 9",
	"LsArgs|1 path 9|2 ignore 9*|3 tool_call_id 9|4 sandbox_policy SandboxPolicy?|5 timeout_ms 13?",
	"GrepArgs|1 pattern 9|2 path 9?|3 glob 9?|4 output_mode 9?|5 context_before 5?|6 context_after 5?|7 context 5?|8 case_insensitive 8?|9 type 9?|10 head_limit 5?|11 multiline 8?|12 sort 9?|13 sort_ascending 8?|14 tool_call_id 9|15 sandbox_policy SandboxPolicy?|16 offset 5?",
	"DiagnosticsArgs|1 path 9|2 tool_call_id 9",
	"RequestContextArgs|2 notes_session_id 9?|3 workspace_id 9?|4 read_only_pinned_tree_sha 9?|5 read_only_plugin_cache_root 9?|7 use_cached 8?|8 wait_for_workspace_cache 8?",
	"McpArgs|1 name 9|2 args 9,Value|3 tool_call_id 9|4 provider_identifier 9|5 tool_name 9|7 smart_mode_approval_only 8|8 skip_approval 8|9 server_identifier 9",
	"KvServerMessage|1 id 13|2 get_blob_args GetBlobArgs|3 set_blob_args SetBlobArgs",
	"GetBlobArgs|1 blob_id 12",
	"SetBlobArgs|1 blob_id 12|2 blob_data 12",

	// ── Client → server ────────────────────────────────────────────────────────────────────────────────────────
	"BidiRequestId|1 request_id 9",
	"BidiAppendRequest|1 data 9|2 request_id BidiRequestId|3 append_seqno 3|4 data_binary 12",
	"AgentClientMessage|1 run_request AgentRunRequest|2 exec_client_message ExecClientMessage|5 exec_client_control_message ExecClientControlMessage|3 kv_client_message KvClientMessage|4 conversation_action ConversationAction|7 client_heartbeat Empty",
	"AgentRunRequest|1 conversation_state ConversationStateStructure|2 action ConversationAction|3 model_details ModelDetails|9 requested_model RequestedModel?|4 mcp_tools McpTools|5 conversation_id 9?|8 custom_system_prompt 9?|10 suggest_next_prompt 8?|11 subagent_type_name 9?|12 exclude_workspace_context 8?|13 harness 9?|16 conversation_group_id 9?|18 dev_raw_model_slug 9?|19 client_supports_inline_images 8?|21 can_create_cloud_subagents 8?|22 suppress_subagent_progress_update_tool 8?|23 client_supports_send_to_user 8?|24 computer_use_coordinate_mode 9?|25 run_id 9?|26 agent_session_id 9?|27 client_supports_prompt_context_usage_rpc 8?|28 client_supports_routed_model_update 8?|31 client_supports_preview_card 8?|32 started_as_new_project 8?|33 first_project_onboarding 8?",
	"ConversationStateStructure|1 root_prompt_messages_json 12*|8 turns 12*|3 todos 12*|4 pending_tool_calls 9*|6 summary 12?|7 plan 12?|9 previous_workspace_uris 9*|10 mode E?|11 summary_archive 12?|12 file_states 9,12|13 summary_archives 12*|17 self_summary_count 13|18 read_paths 9*|19 active_branch_name 9?|22 agent_type 9?|24 subagent_threads 9,9|25 communicate_update_final_summary 9?|26 conversation_started_timestamp_ms 4?|27 conversation_started_time_zone 9?|31 subagent_state_refs 9,12|33 is_root_project_conversation 8?|34 completed_ask_question_tool_call_ids 9*|35 durable_skill_blocks 9*|36 durable_custom_mode_id 9?|37 message_count_at_last_compaction 13?|38 recent_user_message_ids 9*|39 recent_user_message_ids_older_turn_count 13?",
	"ConversationAction|1 user_message_action UserMessageAction|19 inject_context_action InjectContextAction|11 triggering_auth_id 9?",
	// `Run.steer(text)` of a local run: injection id, the run's generation id, and the user's message.
	"InjectContextAction|1 injection_id 9|2 expected_run_id 9|3 user_context UserContextInjection",
	"UserContextInjection|1 user_message UserMessage",
	"UserMessageAction|1 user_message UserMessage|2 request_context RequestContext|3 send_to_interaction_listener 8?|4 prepend_user_messages UserMessage*",
	"UserMessage|1 text 9|2 message_id 9|3 selected_context SelectedContext?|4 mode E|5 is_simulated_msg 8?|6 best_of_n_group_id 9?|7 try_use_best_of_n_promotion 8?|8 rich_text 9?|10 conversation_state_blob_id 12|11 subagent_system_reminder 9?|16 prompt_reference_id 9?|17 thread_id 9?|18 text_blob_id 12?|19 rich_text_blob_id 12?|24 turn_steer 8?|25 started_at_ms 4?|26 completed_at_ms 4?|27 sent_by_agent_id 9?",
	"SelectedContext|1 selected_images SelectedImage*|3 extra_context 9*",
	"SelectedImage|1 blob_id 12|8 data 12|9 blob_id_with_data SelectedImage.BlobIdWithData|10 prompt_upload_ref PromptUploadRef|2 uuid 9|3 path 9|4 dimension SelectedImage.Dimension|7 mime_type 9",
	"SelectedImage.BlobIdWithData|1 blob_id 12|2 data 12",
	"SelectedImage.Dimension|1 width 5|2 height 5",
	"PromptUploadRef|1 upload_id 9",
	"RequestedModel|1 model_id 9|2 max_mode 8|3 parameters RequestedModel.ModelParameterValue*|7 built_in_model 8|8 is_variant_string_representation 8",
	"RequestedModel.ModelParameterValue|1 id 9|2 value 9",
	"ModelDetails|1 model_id 9|3 display_model_id 9|4 display_name 9|5 display_name_short 9|6 aliases 9*|7 max_mode 8?",
	"McpTools|1 mcp_tools McpToolDefinition*",
	"McpToolDefinition|1 name 9|4 provider_identifier 9|5 tool_name 9|2 description 9|3 input_schema Value|6 input_schema_json 9?|7 output_schema_json 9?|8 annotations_json 9?",
	"RequestContext|4 env RequestContextEnv|7 tools McpToolDefinition*|22 custom_subagents CustomSubagent*|42 custom_subagents_info_complete 8?|8 conversation_notes_listing 9?|9 shared_notes_listing 9?|16 cloud_rule 9?|17 web_search_enabled 8?|20 file_contents 9,9|21 user_intent_summary 9?|24 web_fetch_enabled 8?|25 hooks_additional_context 9?|26 commit_attribution_message 9?|27 pr_attribution_message 9?|32 supports_mcp_auth 8?|33 git_repo_info_complete 8?|35 read_lints_enabled 8?|36 mcp_info_complete 8?|49 disabled_team_rules 9*|50 search_conversations_enabled 8?|51 send_message_enabled 8?|52 admin_command_denylist 9*",
	"RequestContextEnv|1 os_version 9|2 workspace_paths 9*|3 shell 9|5 sandbox_enabled 8|7 terminals_folder 9|8 agent_shared_notes_folder 9|9 agent_conversation_notes_folder 9|10 time_zone 9|11 project_folder 9|12 agent_transcripts_folder 9|13 artifacts_folder 9?|14 sandbox_supported 8?|16 sandbox_network_has_defaults 8?|17 sandbox_network_explicit_allowlist 9*|18 secret_redaction_enabled 8?|19 computer_use_supported 8?|20 is_working_dir_home_dir 8?|21 process_working_directory 9?|22 smart_mode_classifier_auto_mode_enabled 8?",
	"CustomSubagent|1 full_path 9|2 name 9|3 description 9|4 tools 9*|5 model 9|6 prompt 9|7 permission_mode E|8 is_background 8|9 plugin 9?|10 marketplace 9?|11 plugin_id 9?|12 marketplace_id 9?|13 force_default_model 8|14 source 9?",
	"ExecClientMessage|1 id 13|15 exec_id 9|39 local_execution_time_ms 5?|2 shell_result ShellResult|3 write_result WriteResult|4 delete_result DeleteResult|5 grep_result GrepResult|7 read_result ReadResult|29 redacted_read_result ReadResult|8 ls_result LsResult|10 request_context_result RequestContextResult|11 mcp_result McpResult|14 shell_stream ShellStream|55 mini_swe_agent_bash_result ShellResult",
	"ExecClientControlMessage|1 stream_close ExecClientStreamClose|2 throw ExecClientThrow|3 heartbeat ExecClientHeartbeat",
	"ExecClientStreamClose|1 id 13",
	"ExecClientThrow|1 id 13|2 error 9|3 stack_trace 9?|4 error_code 9?",
	"ExecClientHeartbeat|1 id 13",
	"KvClientMessage|1 id 13|2 get_blob_result GetBlobResult|3 set_blob_result SetBlobResult",
	"GetBlobResult|1 blob_data 12?",
	"SetBlobResult",

	// Exec results (also used inside tool calls)
	"ShellResult|1 success ShellSuccess|2 failure ShellFailure|3 timeout ShellTimeout|4 rejected ShellRejected|5 spawn_error ShellSpawnError|7 permission_denied ShellPermissionDenied|101 sandbox_policy SandboxPolicy?|102 is_background 8?|103 terminals_folder 9?|104 pid 13?",
	"ShellSuccess|1 command 9|2 working_directory 9|3 exit_code 5|4 signal 9|5 stdout 9|6 stderr 9|7 execution_time 5|9 shell_id 13?|10 interleaved_output 9?|11 pid 13?|12 ms_to_wait 5?|13 local_execution_time_ms 5?|14 background_reason E?|15 output_head 9?|16 output_tail 9?|17 elided_chars 13?",
	"ShellFailure|1 command 9|2 working_directory 9|3 exit_code 5|4 signal 9|5 stdout 9|6 stderr 9|7 execution_time 5|9 interleaved_output 9?|10 abort_reason E?|11 aborted 8|12 local_execution_time_ms 5?|13 output_head 9?|14 output_tail 9?|15 elided_chars 13?",
	"ShellTimeout|1 command 9|2 working_directory 9|3 timeout_ms 5",
	"ShellRejected|1 command 9|2 working_directory 9|3 reason 9|4 is_readonly 8",
	"ShellSpawnError|1 command 9|2 working_directory 9|3 error 9",
	"ShellPermissionDenied|1 command 9|2 working_directory 9|3 error 9|4 is_readonly 8",
	"ShellStream|1 stdout ShellStreamStdout|2 stderr ShellStreamStderr|3 exit ShellStreamExit|4 start ShellStreamStart|7 backgrounded ShellStreamBackgrounded",
	"ShellStreamStdout|1 data 9",
	"ShellStreamStderr|1 data 9",
	"ShellStreamStart|1 sandbox_policy SandboxPolicy?",
	"ShellStreamExit|1 code 13|2 cwd 9|4 aborted 8|5 abort_reason E?|6 local_execution_time_ms 5?",
	"ShellStreamBackgrounded|1 shell_id 13|2 command 9|3 working_directory 9|4 pid 13?|5 ms_to_wait 5?|6 reason E?",
	"ReadResult|1 success ReadSuccess|2 error ReadError|3 rejected ReadRejected|4 file_not_found ReadFileNotFound|5 permission_denied ReadPermissionDenied|6 invalid_file ReadInvalidFile",
	"ReadSuccess|1 path 9|2 content 9|5 data 12|3 total_lines 5|4 file_size 3|6 truncated 8|7 output_blob_id 12?|8 range_applied 8",
	"ReadError|1 path 9|2 error 9",
	"ReadRejected|1 path 9|2 reason 9",
	"ReadFileNotFound|1 path 9",
	"ReadPermissionDenied|1 path 9",
	"ReadInvalidFile|1 path 9|2 reason 9",
	"WriteResult|1 success WriteSuccess",
	"WriteSuccess|1 path 9|2 lines_created 5|3 file_size 5|4 file_content_after_write 9?",
	"DeleteResult|1 success DeleteSuccess",
	"DeleteSuccess|1 path 9|2 deleted_file 9|3 file_size 3|4 prev_content 9",
	"LsResult",
	"GrepResult",
	"RequestContextResult|1 success RequestContextSuccess|2 error RequestContextError|3 rejected RequestContextRejected",
	"RequestContextSuccess|1 request_context RequestContext|2 served_from_disk_cache 8?",
	"RequestContextError|1 error 9",
	"RequestContextRejected|1 reason 9",
	"McpResult|1 success McpSuccess|2 error McpError|3 rejected McpRejected|4 permission_denied McpPermissionDenied|5 tool_not_found McpToolNotFound|6 server_not_found McpServerNotFound|7 approved Empty",
	"McpSuccess|1 content McpToolResultContentItem*|2 is_error 8|3 structured_content Struct",
	"McpToolResultContentItem|1 text McpTextContent|2 image McpImageContent",
	"McpTextContent|1 text 9",
	"McpImageContent|1 data 12|2 mime_type 9",
	"McpError|1 error 9|2 needs_auth 8?",
	"McpRejected|1 reason 9|2 is_readonly 8",
	"McpPermissionDenied|1 error 9|2 is_readonly 8",
	"McpToolNotFound|1 name 9|2 available_tools 9*",
	"McpServerNotFound|1 name 9|2 available_servers 9*",
];

/** Field type: a scalar code, "enum", a message name, or a map. */
export type FieldType =
	| { kind: "scalar"; scalar: number }
	| { kind: "enum" }
	| { kind: "message"; message: string }
	| { kind: "map"; key: number; value: FieldType };

export interface FieldInfo {
	no: number;
	name: string;
	camelName: string;
	type: FieldType;
	repeated: boolean;
	optional: boolean;
}

export interface MessageInfo {
	name: string;
	byNo: Map<number, FieldInfo>;
	byName: Map<string, FieldInfo>;
}

/** google.protobuf well-known types handled as plain JSON by the codec. */
export const WELL_KNOWN = new Set(["Value", "Struct", "ListValue"]);

function parseType(token: string): FieldType {
	if (token === "E") return { kind: "enum" };
	const comma = token.indexOf(",");
	if (comma >= 0) {
		return { kind: "map", key: Number(token.slice(0, comma)), value: parseType(token.slice(comma + 1)) };
	}
	if (/^\d+$/.test(token)) return { kind: "scalar", scalar: Number(token) };
	return { kind: "message", message: token };
}

function camel(name: string): string {
	return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function parseDescriptor(descriptor: string): MessageInfo {
	const [name, ...fields] = descriptor.split("|");
	const info: MessageInfo = { name: name ?? "", byNo: new Map(), byName: new Map() };
	for (const field of fields) {
		const [noText, fieldName, rawType] = field.split(" ");
		if (!noText || !fieldName || !rawType) throw new Error(`bad field "${field}" in ${name}`);
		const repeated = rawType.endsWith("*");
		const optional = rawType.endsWith("?");
		const typeToken = repeated || optional ? rawType.slice(0, -1) : rawType;
		const fieldInfo: FieldInfo = {
			no: Number(noText),
			name: fieldName,
			camelName: camel(fieldName),
			type: parseType(typeToken),
			repeated,
			optional,
		};
		info.byNo.set(fieldInfo.no, fieldInfo);
		info.byName.set(fieldInfo.name, fieldInfo);
		info.byName.set(fieldInfo.camelName, fieldInfo);
	}
	return info;
}

export const SCHEMA: ReadonlyMap<string, MessageInfo> = new Map(
	DESCRIPTORS.map((d) => {
		const info = parseDescriptor(d);
		return [info.name, info] as const;
	}),
);

export function messageInfo(name: string): MessageInfo | undefined {
	return SCHEMA.get(name);
}

/** Checks that every referenced message type is defined (used by the unit test of the schema). */
export function unresolvedReferences(): string[] {
	const missing = new Set<string>();
	const visit = (type: FieldType): void => {
		if (type.kind === "message" && !SCHEMA.has(type.message) && !WELL_KNOWN.has(type.message)) {
			missing.add(type.message);
		}
		if (type.kind === "map") visit(type.value);
	};
	for (const info of SCHEMA.values()) for (const field of info.byNo.values()) visit(field.type);
	return [...missing].sort();
}
