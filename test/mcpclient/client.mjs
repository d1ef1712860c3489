// Drives ragd's MCP server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk), over streamable HTTP: a real client that
// nobody in this project wrote. client_test.go starts ragd and runs
//
//   node client.mjs '<scenario JSON>'      (or MCPCLIENT_SCENARIO=<JSON>)
//
// Scenario fields (all but url optional; a step whose input is absent is
// skipped):
//   url                 the server's /mcp endpoint
//   token               bearer token sent on every request
//   kb_name             namespace used by the ingest/retrieve/query steps
//   ingest_wait_path    file for core_ingest wait:true with a progress token
//   ingest_async_path   file for core_ingest without wait, then core_job_status polling
//   retrieve_query      query for core_retrieve_text
//   query               question for core_query
//   server_wait_ms      the server's wait limit for wait:true (default 45000)
//   job_timeout_ms      how long to poll an async job (default 120000)
//   refused_tokens      tokens that must be refused with HTTP 401 ("" = no header)
//   forbidden           {token, kb_name}: a namespace-limited key calling
//                       core_retrieve_text on another namespace gets isError "forbidden"
//   beyond_tools        true: list every resources/list page, read a document
//                       resource of kb_name and the chunk core_retrieve_text found
//                       first, get kb_answer and kb_summarize, complete kb_name
//                       and document_id
//   sampling_answer     text the client's stand-in model answers sampling requests
//                       with (the client then declares sampling); core_query must
//                       report route "sampling" and that answer
//   sampling_decline    reason a second client's user declines sampling with;
//                       its core_query must be extractive, fallback giving the reason
//   expect_resources    {kb_name: count}: the documents resources/list must give,
//                       over all its pages
//   limited             {token, kb_name}: a key limited to kb_name must not list,
//                       read, complete or prompt on the documents of the others
//
// It prints one JSON line per step, {"step", "ok", ...details}, then a summary
// line, and exits 1 if any step failed (2 if the scenario is unusable).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const CORE_TOOLS = [
    'core_ingest',
    'core_ingest_directory',
    'core_job_status',
    'core_query',
    'core_retrieve_text',
    'core_retrieve_visual',
    'core_list_documents',
    'core_delete_document',
    'core_stats'
];

let failures = 0;
let passes = 0;

function report(step, ok, details = {}) {
    if (ok) passes++;
    else failures++;
    process.stdout.write(JSON.stringify({ step, ok, ...details }) + '\n');
}

// A step: fn returns details (pass) or throws (fail, with the error).
async function step(name, fn) {
    try {
        const details = await fn();
        report(name, true, details ?? {});
        return true;
    } catch (err) {
        report(name, false, { error: describe(err) });
        return false;
    }
}

function describe(err) {
    if (!(err instanceof Error)) return { message: String(err) };
    const d = { name: err.name, message: err.message };
    if (err.code !== undefined) d.code = err.code;
    if (err.data !== undefined) d.data = err.data;
    return d;
}

class Fail extends Error {
    constructor(message, details) {
        super(message + (details === undefined ? '' : ': ' + JSON.stringify(details).slice(0, 2000)));
        this.name = 'AssertionFailed';
    }
}

function check(cond, message, details) {
    if (!cond) throw new Fail(message, details);
}

function textOf(result) {
    return (result?.content ?? [])
        .filter(c => c.type === 'text')
        .map(c => c.text)
        .join('');
}

function loadScenario() {
    const raw = process.argv[2] ?? process.env.MCPCLIENT_SCENARIO;
    if (!raw) {
        console.error('usage: node client.mjs \'<scenario JSON>\' (or set MCPCLIENT_SCENARIO)');
        process.exit(2);
    }
    let s;
    try {
        s = JSON.parse(raw);
    } catch (err) {
        console.error(`scenario is not JSON: ${err.message}`);
        process.exit(2);
    }
    if (typeof s.url !== 'string' || !s.url) {
        console.error('scenario needs "url" (the server\'s /mcp endpoint)');
        process.exit(2);
    }
    return s;
}

// connect returns a connected client and its transport; token "" or
// undefined sends no Authorization header. With onSample, the client
// declares sampling and answers sampling/createMessage with it.
async function connect(url, token, name, onSample) {
    const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
    const client = new Client({ name, version: '1.0.0' }, { capabilities: onSample ? { sampling: {} } : {} });
    if (onSample) client.setRequestHandler(CreateMessageRequestSchema, onSample);
    await client.connect(transport);
    return { client, transport };
}

async function callOK(client, name, args, options) {
    const result = await client.callTool({ name, arguments: args }, undefined, options);
    check(!result.isError, `${name} returned isError`, textOf(result));
    check(result.structuredContent && typeof result.structuredContent === 'object', `${name}: no structuredContent`, result);
    return result.structuredContent;
}

// explainListTools adds to a tools/list the SDK rejected (its zod schema
// for Tool) the offending tools and the parts of their definitions at fault,
// read from the same request made without validation.
async function explainListTools(client, err) {
    if (!Array.isArray(err?.issues)) return err;
    try {
        const raw = await client.request({ method: 'tools/list', params: {} }, { safeParse: data => ({ success: true, data }) });
        const at = err.issues.map(issue => {
            let v = raw;
            for (const k of issue.path) v = v?.[k];
            const tool = issue.path[0] === 'tools' ? raw.tools?.[issue.path[1]]?.name : undefined;
            return { tool, path: issue.path.join('.'), message: issue.message, value: v };
        });
        return new Fail('the SDK rejected the tools/list result', at);
    } catch {
        return err;
    }
}

const sleep = ms => new Promise(r => setTimeout(r, ms));

// listAllResources follows resources/list's nextCursor to the last page
// and returns the pages.
async function listAllResources(c) {
    const pages = [];
    let cursor;
    for (let i = 0; i < 50; i++) {
        const res = await c.listResources(cursor ? { cursor } : undefined);
        pages.push(res.resources);
        cursor = res.nextCursor;
        if (!cursor) return pages;
    }
    throw new Fail('resources/list does not end after 50 pages');
}

// countByNamespace counts document resources by namespace, failing on a
// resource listed twice or one that is not ragd://{kb}/documents/{id}.
function countByNamespace(pages) {
    const seen = new Set();
    const counts = {};
    for (const r of pages.flat()) {
        check(!seen.has(r.uri), `${r.uri} listed twice`);
        seen.add(r.uri);
        const m = /^ragd:\/\/([^/]+)\/documents\/([^/]+)$/.exec(r.uri);
        check(m, 'not a document resource', r);
        check(r.mimeType === 'text/markdown' && r.name && r.description, 'resource without mimeType/name/description', r);
        counts[m[1]] = (counts[m[1]] ?? 0) + 1;
    }
    return counts;
}

// rpcCode runs fn, which must fail with a JSON-RPC error, and returns the
// error's code and message.
async function rpcCode(fn, what) {
    try {
        const res = await fn();
        throw new Fail(`${what} succeeded`, res);
    } catch (err) {
        if (err instanceof Fail) throw err;
        check(typeof err?.code === 'number', `${what}: not a JSON-RPC error`, describe(err));
        return { code: err.code, message: err.message };
    }
}

// notFound tells MCP's "resource not found" (SEP-2164: invalid params,
// -32602, with the URI in data) from other errors.
const notFound = e => e.code === -32602 && /Resource not found/.test(e.message);

// beyondTools reads what MCP offers besides tools: resources (every page),
// a document and a chunk, both prompts and completions. It returns the
// document resource it read, for the namespace checks.
async function beyondTools(client, s, topNode) {
    const kbName = s.kb_name ?? 'default';
    let doc;
    await step('list_resources', async () => {
        const pages = await listAllResources(client);
        check(pages.every(p => p.length <= 100), 'a page of more than 100', pages.map(p => p.length));
        const counts = countByNamespace(pages);
        if (s.expect_resources) {
            check(JSON.stringify(Object.entries(counts).sort()) === JSON.stringify(Object.entries(s.expect_resources).sort()),
                'documents listed per namespace', { listed: counts, want: s.expect_resources });
        }
        const total = pages.reduce((n, p) => n + p.length, 0);
        check(total <= 100 || pages.length > 1, 'more than 100 documents on one page');
        doc = pages.flat().find(r => r.uri.startsWith(`ragd://${kbName}/documents/`));
        check(doc, `no document resource of ${kbName}`, counts);
        const { resourceTemplates } = await client.listResourceTemplates();
        const templates = resourceTemplates.map(t => t.uriTemplate);
        check(templates.includes('ragd://{kb_name}/documents/{document_id}') && templates.includes('ragd://{kb_name}/chunks/{chunk_id}'),
            'resource templates missing', templates);
        return { pages: pages.map(p => p.length), per_namespace: counts, first: doc, templates };
    });
    if (!doc) return undefined;
    await step('read_resource', async () => {
        const { contents } = await client.readResource({ uri: doc.uri });
        check(contents.length === 1 && contents[0].mimeType === 'text/markdown' && contents[0].uri === doc.uri, 'not one markdown content', contents);
        const text = contents[0].text;
        check(text.startsWith('---\ntitle: ') && text.includes('\nsource_type: ') && /\n#{1,6} /.test(text), 'no front matter or headings', text.slice(0, 500));
        check(contents[0]._meta?.document_id === doc.name && contents[0]._meta?.kb_name === kbName, 'metadata', contents[0]._meta);
        return { uri: doc.uri, chars: text.length, meta: contents[0]._meta, start: text.slice(0, 200) };
    });
    if (topNode) {
        await step('read_chunk', async () => {
            const uri = `ragd://${kbName}/chunks/${topNode.node_id}`;
            const { contents } = await client.readResource({ uri });
            check(contents[0].text.includes(topNode.text), 'the chunk text is not in the resource', contents[0]);
            check(contents[0]._meta?.document_uri?.startsWith(`ragd://${kbName}/documents/`), 'no document_uri', contents[0]._meta);
            return { uri, document_uri: contents[0]._meta.document_uri, path: contents[0]._meta.path };
        });
    }
    await step('get_prompt', async () => {
        const { prompts } = await client.listPrompts();
        check(['kb_answer', 'kb_summarize'].every(n => prompts.some(p => p.name === n)), 'prompts missing', prompts);
        const question = s.query ?? 'What is this about?';
        const res = await client.getPrompt({ name: 'kb_answer', arguments: { question, kb_name: kbName } });
        const text = res.messages.map(m => m.content?.text ?? '').join('\n');
        check(text.includes('Passages:') && text.includes('[1] source: ') && text.includes(`Question: ${question}`), 'no passages in kb_answer', res);
        check(res._meta?.sources?.length > 0, 'no _meta.sources', res._meta);
        return { messages: res.messages.length, sources: res._meta.sources.length, description: res.description };
    });
    await step('get_prompt_summarize', async () => {
        const res = await client.getPrompt({ name: 'kb_summarize', arguments: { document_id: doc.name, kb_name: kbName } });
        const text = res.messages.map(m => m.content?.text ?? '').join('\n');
        check(text.includes('Summarize this document.') && text.includes('Text:'), 'not a summary prompt', res);
        check(res._meta?.document_uri === doc.uri, 'document_uri', res._meta);
        return { messages: res.messages.length, chars: text.length, truncated: res._meta.truncated, description: res.description };
    });
    await step('complete_kb_name', async () => {
        const res = await client.complete({ ref: { type: 'ref/prompt', name: 'kb_answer' }, argument: { name: 'kb_name', value: kbName.slice(0, 1) } });
        check(res.completion.values.includes(kbName), `${kbName} not among the completions`, res.completion);
        check(res.completion.values.every(v => v.startsWith(kbName.slice(0, 1))), 'a completion without the prefix', res.completion);
        return { prefix: kbName.slice(0, 1), values: res.completion.values };
    });
    await step('complete_document_id', async () => {
        const prefix = doc.name.slice(0, 3);
        const res = await client.complete({
            ref: { type: 'ref/resource', uri: 'ragd://{kb_name}/documents/{document_id}' },
            argument: { name: 'document_id', value: prefix },
            context: { arguments: { kb_name: kbName } }
        });
        check(res.completion.values.includes(doc.name), `${doc.name} not among the completions`, res.completion);
        check(res.completion.values.every(v => v.startsWith(prefix)), 'a completion without the prefix', res.completion);
        return { prefix, values: res.completion.values };
    });
    return doc;
}

// limitedKey checks that a key limited to s.limited.kb_name neither lists,
// reads nor completes another namespace's documents: they are not listed,
// reading one is "resource not found" (as for one that never was, so that
// nothing about another namespace shows), completion offers none, and the
// prompts refuse the namespace.
async function limitedKey(s, other, otherChunk) {
    const own = s.limited.kb_name;
    const otherKB = /^ragd:\/\/([^/]+)\//.exec(other.uri)[1];
    await step('limited_key_scope', async () => {
        const { client: c } = await connect(s.url, s.limited.token, 'ragd-mcpclient-test-limited');
        try {
            const counts = countByNamespace(await listAllResources(c));
            check(Object.keys(counts).length === 1 && counts[own] > 0, `lists other namespaces than ${own}`, counts);
            const read = await rpcCode(() => c.readResource({ uri: other.uri }), `reading ${other.uri}`);
            check(notFound(read), 'not resource-not-found', read);
            const chunk = otherChunk ? await rpcCode(() => c.readResource({ uri: `ragd://${otherKB}/chunks/${otherChunk.node_id}` }), 'reading a chunk') : null;
            check(!chunk || notFound(chunk), 'chunk: not resource-not-found', chunk);
            const kbs = await c.complete({ ref: { type: 'ref/prompt', name: 'kb_answer' }, argument: { name: 'kb_name', value: '' } });
            check(JSON.stringify(kbs.completion.values) === JSON.stringify([own]), `kb_name completes to more than ${own}`, kbs.completion);
            const ids = await c.complete({ ref: { type: 'ref/prompt', name: 'kb_summarize' }, argument: { name: 'document_id', value: '' },
                context: { arguments: { kb_name: otherKB } } });
            check(ids.completion.values.length === 0, `document ids of ${otherKB} offered`, ids.completion);
            const summarize = await rpcCode(() => c.getPrompt({ name: 'kb_summarize', arguments: { document_id: other.name, kb_name: otherKB } }), 'kb_summarize');
            check(/forbidden/i.test(summarize.message), 'kb_summarize does not say forbidden', summarize);
            const answer = await rpcCode(() => c.getPrompt({ name: 'kb_answer', arguments: { question: 'anything', kb_name: otherKB } }), 'kb_answer');
            check(/forbidden/i.test(answer.message), 'kb_answer does not say forbidden', answer);
            return { listed: counts, read, chunk, kb_names: kbs.completion.values, summarize, answer };
        } finally {
            await c.close().catch(() => {});
        }
    });
}

// samplingDeclined has a client whose user declines every sampling request
// ask core_query: the answer is extractive, and fallback says why.
async function samplingDeclined(s, kb) {
    await step('query_sampling_declined', async () => {
        let asked = 0;
        const { client: c } = await connect(s.url, s.token, 'ragd-mcpclient-test-declining', async () => {
            asked++;
            throw new McpError(-1, s.sampling_decline);
        });
        try {
            const out = await callOK(c, 'core_query', { query: s.query, ...kb });
            check(asked === 1, 'the client was not asked exactly once', asked);
            check(out.route === 'extractive' && out.answer.trim() && out.sources.length > 0, 'not an extractive answer', out);
            check(out.fallback?.includes(s.sampling_decline), 'fallback does not give the reason', out);
            return { route: out.route, fallback: out.fallback, answer: out.answer.slice(0, 200) };
        } finally {
            await c.close().catch(() => {});
        }
    });
}

async function main() {
    const s = loadScenario();
    const kb = s.kb_name ? { kb_name: s.kb_name } : {};
    const serverWait = s.server_wait_ms ?? 45000;

    // 1. Connect, negotiate, list tools.
    let client, transport;
    // The stand-in for the client's own model: it keeps what it was asked.
    const sampled = [];
    const onSample = s.sampling_answer ? async request => {
        sampled.push(request.params);
        return { role: 'assistant', model: 'stand-in', content: { type: 'text', text: s.sampling_answer } };
    } : undefined;
    const connected = await step('connect', async () => {
        ({ client, transport } = await connect(s.url, s.token, 'ragd-mcpclient-test', onSample));
        return {
            protocol_version: transport.protocolVersion ?? null,
            server: client.getServerVersion() ?? null,
            capabilities: client.getServerCapabilities() ?? null,
            has_instructions: !!client.getInstructions(),
            auth: s.token ? 'bearer' : 'none'
        };
    });
    if (!connected) return;

    await step('list_tools', async () => {
        let tools;
        try {
            ({ tools } = await client.listTools());
        } catch (err) {
            throw await explainListTools(client, err);
        }
        const byName = Object.fromEntries(tools.map(t => [t.name, t]));
        const missing = CORE_TOOLS.filter(n => !byName[n]);
        check(missing.length === 0, 'core tools missing', { missing, listed: Object.keys(byName) });
        for (const n of CORE_TOOLS) {
            const t = byName[n];
            check(t.description, `${n}: no description`);
            check(t.inputSchema?.type === 'object', `${n}: inputSchema is not an object schema`, t.inputSchema);
            check(t.outputSchema?.type === 'object', `${n}: no outputSchema`, t);
            check(t.annotations, `${n}: no annotations`, t);
        }
        check(byName.core_query.annotations.readOnlyHint === true, 'core_query readOnlyHint', byName.core_query.annotations);
        check(byName.core_retrieve_text.annotations.readOnlyHint === true, 'core_retrieve_text readOnlyHint', byName.core_retrieve_text.annotations);
        check(byName.core_delete_document.annotations.destructiveHint === true, 'core_delete_document destructiveHint',
            byName.core_delete_document.annotations);
        check(byName.core_ingest.annotations.readOnlyHint !== true, 'core_ingest must not be read-only', byName.core_ingest.annotations);
        check(byName.core_retrieve_text.inputSchema.required?.includes('query'), 'core_retrieve_text requires query',
            byName.core_retrieve_text.inputSchema);
        return { count: tools.length, tools: tools.map(t => t.name) };
    });

    // 2. core_ingest wait:true with a progress token (the SDK sets one when
    //    onprogress is given) and a timeout well above the server's wait limit.
    if (s.ingest_wait_path) {
        await step('ingest_wait_progress', async () => {
            const progress = [];
            const started = Date.now();
            const out = await callOK(client, 'core_ingest', { source_uri: s.ingest_wait_path, wait: true, ...kb }, {
                onprogress: p => progress.push(p),
                timeout: serverWait + 60000
            });
            check(out.status === 'completed', 'status is not completed', out);
            check(out.job_id && out.document_id, 'job_id/document_id missing', out);
            check(progress.length >= 1, 'no progress notification received', out);
            for (let i = 0; i < progress.length; i++) {
                const p = progress[i];
                check(typeof p.progress === 'number' && p.total > 0, `progress ${i} malformed`, p);
                check(i === 0 || p.progress >= progress[i - 1].progress, `progress ${i} went backwards`, progress);
            }
            return {
                status: out.status,
                job_id: out.job_id,
                document_id: out.document_id,
                chunks_indexed: out.result?.chunks_indexed,
                progress_notifications: progress.length,
                last_progress: progress.at(-1),
                ms: Date.now() - started
            };
        });
    }

    // 3. core_ingest without wait, then poll core_job_status.
    if (s.ingest_async_path) {
        await step('ingest_async_poll', async () => {
            const started = Date.now();
            const out = await callOK(client, 'core_ingest', { source_uri: s.ingest_async_path, ...kb });
            check(typeof out.job_id === 'string' && out.job_id, 'no job_id', out);
            check(out.dedup_hit === false, 'unexpected dedup_hit', out);
            const enqueueMs = Date.now() - started;
            const deadline = Date.now() + (s.job_timeout_ms ?? 120000);
            let job, polls = 0;
            for (;;) {
                job = await callOK(client, 'core_job_status', { job_id: out.job_id });
                polls++;
                if (job.status === 'completed') break;
                check(job.status !== 'failed', 'job failed', job);
                check(Date.now() < deadline, 'job did not complete in time', job);
                await sleep(200);
            }
            check(job.job_id === out.job_id, 'job_status answered for another job', job);
            return { job_id: out.job_id, first_status: out.status, enqueue_ms: enqueueMs, polls, status: job.status, progress: job.progress };
        });
    }

    // 4. core_retrieve_text.
    let topNode;
    if (s.retrieve_query) {
        await step('retrieve_text', async () => {
            const out = await callOK(client, 'core_retrieve_text', { query: s.retrieve_query, top_k: 3, ...kb });
            check(Array.isArray(out.results) && out.results.length > 0, 'no results', out);
            for (const r of out.results) {
                check(r.node_id && r.text && typeof r.score === 'number', 'result without node_id/text/score', r);
                check(typeof r.metadata?.path === 'string' && r.metadata.path, 'result without metadata.path', r);
            }
            const top = out.results[0];
            topNode = top;
            return {
                count: out.results.length,
                top: { node_id: top.node_id, score: top.score, path: top.metadata.path, source_type: top.metadata.source_type, text: top.text.slice(0, 120) }
            };
        });
    }

    // 5. core_query.
    if (s.query) {
        await step('query', async () => {
            const out = await callOK(client, 'core_query', { query: s.query, ...kb });
            check(typeof out.answer === 'string' && out.answer.trim(), 'empty answer', out);
            if (s.sampling_answer) {
                check(out.route === 'sampling' && out.answer === s.sampling_answer, 'not answered by the client\'s model', out);
            } else {
                check(['llm', 'extractive', 'not_found'].includes(out.route), 'unexpected route', out);
            }
            return { route: out.route, sources: out.sources?.length ?? 0, answer: out.answer.slice(0, 200) };
        });
    }
    if (s.query && s.sampling_answer) {
        // The server has no chat model: the stand-in, asked through
        // sampling/createMessage, writes the answer from the passages.
        await step('query_sampling', async () => {
            check(sampled.length === 1, 'the stand-in model was not asked exactly once', sampled.length);
            const asked = sampled[0];
            const prompt = (asked.messages ?? []).map(m => m.content?.text ?? '').join('\n');
            check(/numbered passages/.test(asked.systemPrompt ?? ''), 'no grounding rules in the system prompt', asked);
            check(prompt.includes('[1] source: ') && prompt.includes(`Question: ${s.query}`), 'the passages are not in the request', asked);
            return { asked: sampled.length, max_tokens: asked.maxTokens, prompt_chars: prompt.length };
        });
    }
    const doc = s.beyond_tools ? await beyondTools(client, s, topNode) : undefined;
    if (s.limited && doc) await limitedKey(s, doc, topNode);
    if (s.query && s.sampling_decline) await samplingDeclined(s, kb);

    await client.close();

    // 6a. Refused tokens: connect (initialize) must fail with HTTP 401.
    for (const bad of s.refused_tokens ?? []) {
        const label = bad ? 'wrong token' : 'no token';
        await step(`auth_refused(${label})`, async () => {
            let c;
            try {
                ({ client: c } = await connect(s.url, bad, 'ragd-mcpclient-test-refused'));
            } catch (err) {
                const msg = String(err?.message ?? err);
                check(err?.code === 401 || /401|unauthori[sz]ed/i.test(msg), 'refused, but not with 401', describe(err));
                return { refused: describe(err) };
            }
            // Connected: auth is not enforced on initialize; a request must still fail.
            try {
                await c.listTools();
            } catch (err) {
                const msg = String(err?.message ?? err);
                check(err?.code === 401 || /401|unauthori[sz]ed/i.test(msg), 'tools/list refused, but not with 401', describe(err));
                return { refused_on: 'tools/list', refused: describe(err) };
            } finally {
                await c.close().catch(() => {});
            }
            throw new Fail(`${label} was accepted: initialize and tools/list succeeded`);
        });
    }

    // 6b. A namespace-limited key gets a tool error on another namespace.
    if (s.forbidden) {
        await step('auth_namespace_forbidden', async () => {
            const { client: c, transport: t } = await connect(s.url, s.forbidden.token, 'ragd-mcpclient-test-limited');
            try {
                const result = await c.callTool({
                    name: 'core_retrieve_text',
                    arguments: { query: s.retrieve_query ?? 'anything', kb_name: s.forbidden.kb_name }
                });
                const text = textOf(result);
                check(result.isError === true, `kb_name ${s.forbidden.kb_name} was not refused`, result);
                check(/forbidden/i.test(text), 'tool error does not say forbidden', text);
                return { protocol_version: t.protocolVersion ?? null, is_error: true, message: text };
            } finally {
                await c.close().catch(() => {});
            }
        });
    }
}

try {
    await main();
} catch (err) {
    report('unexpected', false, { error: describe(err), stack: err?.stack });
}
process.stdout.write(JSON.stringify({ summary: true, passed: passes, failed: failures }) + '\n');
process.exit(failures > 0 ? 1 : 0);
