/**
 * What `env serve` says about itself beyond OpenEnv's `/schema`: the OpenAPI document
 * (`GET /openapi.json`, which `openenv validate` reads for the API version and for the server's
 * mode — simulation: `/reset`, `/step` and `/state` all present) and the learner's tools as MCP
 * lists them (`POST /mcp`, JSON-RPC 2.0 `tools/list`). Written from this server's own routes and
 * schemas (protocol.ts); OpenEnv's FastAPI server generates the same kind of document from its.
 */
import type { LearnerRole } from '../../core/env/learner-episode';
import { DA_TOOLS, schemas } from './protocol';

/** An MCP tool: name, description, JSON schema of its arguments. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The learner's moves as MCP tools: the DA's functions (banking tools, speak, end_call); the CA's one utterance. */
export function mcpTools(role: LearnerRole): McpTool[] {
  if (role === 'CA')
    return [
      {
        name: 'speak',
        description: "The customer's next utterance.",
        inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false },
      },
    ];
  return DA_TOOLS.map((t) => ({ name: t.function.name, description: t.function.description, inputSchema: t.function.parameters }));
}

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The OpenAPI 3.1 document of this server's HTTP API for the learning `role`. */
export function openApiDocument(role: LearnerRole, description: string): Record<string, unknown> {
  const s = schemas(role);
  const validation = {
    description: 'Validation error: pydantic-style field errors in "detail", the fields named in "message"',
    ...json(ref('HTTPValidationError')),
  };
  const sessionHeader = { name: 'X-Session-Id', in: 'header', required: false, schema: { type: 'string' }, description: 'the session /reset opened' };
  return {
    openapi: '3.1.0',
    info: { title: 'Sparring environment (OpenEnv)', version: '1.0.0', description },
    paths: {
      '/reset': {
        post: {
          tags: ['Environment Control'],
          summary: 'Reset the environment: open a session (or continue the one named) and return the first observation',
          requestBody: { required: false, ...json(ref('ResetRequest')) },
          responses: { '200': { description: 'The first observation', ...json(ref('StepResponse')) }, '422': validation },
        },
      },
      '/step': {
        post: {
          tags: ['Environment Control'],
          summary: "Play the learner's move in its session",
          parameters: [sessionHeader],
          requestBody: { required: true, ...json(ref('StepRequest')) },
          responses: { '200': { description: 'The observation after the move', ...json(ref('StepResponse')) }, '422': validation },
        },
      },
      '/state': {
        get: {
          tags: ['State Management'],
          summary: "A session's state",
          parameters: [{ name: 'session_id', in: 'query', required: false, schema: { type: 'string' } }, sessionHeader],
          responses: { '200': { description: 'The state', ...json(ref('SparringState')) } },
        },
      },
      '/schema': {
        get: {
          tags: ['Schema'],
          summary: 'JSON schemas of the action, the observation and the state',
          responses: {
            '200': {
              description: 'The schemas',
              ...json({ type: 'object', properties: { action: { type: 'object' }, observation: { type: 'object' }, state: { type: 'object' } } }),
            },
          },
        },
      },
      '/metadata': {
        get: {
          tags: ['Environment Info'],
          summary: 'Name, description and version of the environment',
          responses: { '200': { description: 'The metadata', ...json({ type: 'object', required: ['name', 'description'] }) } },
        },
      },
      '/health': {
        get: {
          tags: ['Health'],
          summary: 'Health check (needs no token)',
          responses: { '200': { description: 'healthy', ...json({ type: 'object', properties: { status: { const: 'healthy' } } }) } },
        },
      },
      '/mcp': {
        post: {
          tags: ['MCP'],
          summary: 'JSON-RPC 2.0: tools/list (the learner\'s moves as tools) and tools/call (a move in the session "params.session_id")',
          requestBody: { required: true, ...json({ type: 'object' }) },
          responses: { '200': { description: 'A JSON-RPC 2.0 response', ...json({ type: 'object', required: ['jsonrpc'] }) } },
        },
      },
    },
    components: {
      schemas: {
        SparringAction: s.action,
        SparringObservation: s.observation,
        SparringState: s.state,
        ResetRequest: {
          type: 'object',
          additionalProperties: false,
          properties: {
            seed: {
              type: ['integer', 'null'],
              minimum: 0,
              description: 'the episode seed (read modulo 2^32; `seed >>> 0` of an arena seed plays that episode)',
            },
            episode_id: { type: ['string', 'null'], maxLength: 255, description: "the client's own id for the episode, echoed as episode_id" },
            scenario: { type: ['string', 'null'], description: 'a scenario id (default: drawn by the seed)' },
            model: { type: ['string', 'null'], maxLength: 200, description: "the learner's name, stored as env:<model>" },
            replay: { type: ['array', 'null'], items: { type: 'string' }, description: "the learner's earlier turns (a gym export's replay)" },
            opponent_replay: {
              type: ['array', 'null'],
              items: { type: 'string' },
              description: "the opponent's recorded turns, said in its place during the replay (a gym export's opponent_replay)",
            },
            session_id: { type: ['string', 'null'], description: 'continue this session instead of opening one' },
          },
        },
        StepRequest: {
          type: 'object',
          additionalProperties: false,
          required: ['action'],
          properties: {
            action: ref('SparringAction'),
            session_id: { type: 'string' },
            timeout_s: { type: ['number', 'null'], exclusiveMinimum: 0 },
            request_id: { type: ['string', 'null'], maxLength: 255 },
          },
        },
        StepResponse: {
          type: 'object',
          required: ['observation', 'done'],
          properties: { observation: ref('SparringObservation'), reward: { type: ['number', 'null'] }, done: { type: 'boolean' } },
        },
        HTTPValidationError: {
          type: 'object',
          properties: {
            detail: {
              type: 'array',
              items: {
                type: 'object',
                required: ['type', 'loc', 'msg'],
                properties: { type: { type: 'string' }, loc: { type: 'array' }, msg: { type: 'string' }, input: {}, ctx: { type: 'object' } },
              },
            },
            message: { type: 'string' },
            code: { type: 'string' },
          },
        },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'or the token as the first path segments: /token/<token>/…' },
      },
    },
    security: [{ bearer: [] }],
  };
}
