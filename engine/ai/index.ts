/** The AI layer's public surface: providers, summarisation and the maker. */
export type { AiProvider, AiCallPolicy, ChatMessage, ChatRequest, ChatResult } from './provider.js';
export { DEFAULT_AI_CALL_POLICY } from './provider.js';
export { resolveAiProvider, selectAiProfile, resolveApiKey, resolveModel, type ResolveAiProviderOptions, type RunCommand } from './resolve.js';
export { AiError, AiAuthError, AiNotConfiguredError, AiRateLimitedError, AiRequestError, AiTimeoutError } from './errors.js';
export { configHint } from './hints.js';
export { PROVIDER_KINDS, isProviderKind } from './kinds.js';
export { isReasoningModel } from './call-policy.js';
export { chunkRecords, planChunks, recordsFromResults, selectEvenly, splitOversized, type Chunk, type ChunkPlan } from './chunking.js';
export { summariseContext, type SummariseOptions, type SummariseResult } from './summarise.js';
export { makePlan, formatProblems, type MakePlanOptions, type PlanValidator, type ValidationProblem, type ValidationResult } from './maker.js';
export { makerSystemPrompt, planJsonSchema, type MakerCatalogue } from './maker-prompt.js';
export { extractJson } from './json.js';
export { askQuestion, contextPlanFor, routeAnswerable, ProviderNotIntegratedError, type AskBackend, type AskOptions, type AskResult } from './ask.js';
export { ConversationHistory, historyProject, HISTORY_TURNS } from './history.js';
