// Drives ragd's MCP Tasks with the official requester library,
// @modelcontextprotocol/ext-tasks, over the official TypeScript SDK client
// (@modelcontextprotocol/client), in one protocol generation:
//
//   legacy: 2025-11-25 (capabilities.tasks, tools/call with task,
//           tasks/get, tasks/result, tasks/list, tasks/cancel)
//   modern: 2026-07-28 with the io.modelcontextprotocol/tasks extension
//           (server/discover, resultType "task", tasks/get with the result
//           inline, tasks/cancel), its task requests framed and sent
//           through rawDispatch as the library documents.
//
// A directory is indexed as a task (preference "require") and followed to
// its result; tasks/list must hold it (legacy); a second directory's task
// is cancelled through the library while running (a status shows files
// done). Each step prints one JSON line
// {step, ok, ...}; the last line is the summary. The first task's wire
// exchange, every request and its answer, is printed as step "wire", the
// cancelled task's as step "wire_cancel".
//
// Usage: node tasks.mjs '<scenario JSON>' (run by tasks_test.go).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';

const sc = JSON.parse(process.argv[2]);
const MODERN = '2026-07-28';
const modern = sc.generation === 'modern';
let passed = 0;
let failed = 0;

function report(step, ok, data = {}) {
    console.log(JSON.stringify({ step, ok, ...data }));
    if (ok) passed++;
    else failed++;
}

async function step(name, fn) {
    try {
        const data = await fn();
        report(name, true, data ?? {});
        return data;
    } catch (e) {
        report(name, false, { error: String(e?.stack ?? e) });
        return undefined;
    }
}

function check(cond, msg) {
    if (!cond) throw new Error(msg);
}

// wire records each request and its answer while tracing is on.
const wire = [];
let tracing = false;

function record(headers, body, status, text) {
    if (!tracing || /"method":"tools\/list"/.test(body)) return; // the tool list the library reads first is long
    const pick = {};
    for (const h of ['MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name']) {
        const v = headers?.[h] ?? headers?.[h.toLowerCase()];
        if (v) pick[h] = v;
    }
    let answer = text;
    const data = /^data: (.*)$/m.exec(text);
    try {
        answer = JSON.parse(data ? data[1] : text);
    } catch {
        // not JSON: kept as text
    }
    let request = body;
    try {
        request = JSON.parse(body);
    } catch {
        // kept as text
    }
    wire.push({ headers: pick, request, status, answer });
}

// tracingFetch is the SDK transport's fetch, recording POSTs.
async function tracingFetch(url, init) {
    const resp = await fetch(url, init);
    if (!tracing || init?.method !== 'POST') return resp;
    const text = await resp.clone().text();
    const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers.entries()) : init.headers;
    record(headers, init.body, resp.status, text);
    return resp;
}

// rawDispatch sends one 2026-07-28 task request (tools/call, tasks/*),
// already framed by the library, and returns its JSON-RPC answer.
let nextId = 1000;
async function rawDispatch(request, options = {}) {
    const headers = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': request.method,
        ...(options.context?.headers ?? {}),
    };
    if (request.method === 'tools/call') headers['Mcp-Name'] = request.params.name;
    if (sc.token) headers.Authorization = `Bearer ${sc.token}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...request });
    const resp = await fetch(sc.url, { method: 'POST', headers, body, signal: options.signal });
    const text = await resp.text();
    record(headers, body, resp.status, text);
    const data = /^data: (.*)$/m.exec(text);
    const msg = JSON.parse(data ? data[1] : text);
    if (msg.error) return { kind: 'error', error: msg.error };
    return { kind: 'result', result: msg.result };
}

// follow reads an execution's updates to its outcome and returns the
// statuses seen and the outcome.
async function follow(execution) {
    const statuses = [];
    for await (const event of execution.updates()) {
        if (event.type === 'task') statuses.push({ status: event.task.status, statusMessage: event.task.statusMessage });
        if (event.type === 'outcome') return { statuses, outcome: event.outcome };
    }
    throw new Error('updates ended without an outcome');
}

// doneCount is the files done a statusMessage reports, -1 for none.
function doneCount(message) {
    const m = /: (\d+) of (\d+) files/.exec(message ?? '');
    return m ? Number(m[1]) : -1;
}

async function main() {
    const client = new Client({ name: 'ragd-tasks-requester', version: '1.0.0' },
        modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
    const requestInit = sc.token ? { headers: { Authorization: `Bearer ${sc.token}` } } : undefined;
    const transport = new StreamableHTTPClientTransport(new URL(sc.url), { fetch: tracingFetch, requestInit });
    const connected = await step('connect', async () => {
        await client.connect(transport);
        const caps = client.getServerCapabilities();
        check(client.getProtocolEra() === (modern ? 'modern' : 'legacy'), `era ${client.getProtocolEra()}`);
        if (modern) check(JSON.stringify(caps?.extensions?.['io.modelcontextprotocol/tasks']) === '{}', `extensions ${JSON.stringify(caps?.extensions)}`);
        else check(caps?.tasks?.requests?.tools?.call !== undefined, `tasks capability ${JSON.stringify(caps?.tasks)}`);
        return { protocol_version: transport.protocolVersion ?? (modern ? MODERN : null), server: client.getServerVersion(), capabilities: caps };
    });
    if (!connected) return;
    const session = createTaskSessionFromClient(client, {
        endpointId: sc.url,
        ...(modern ? {
            rawDispatch,
            v2RequestFraming: { protocolVersion: MODERN, clientInfo: { name: 'ragd-tasks-requester', version: '1.0.0' }, clientCapabilities: {} },
        } : {}),
    });
    try {
        await run(session);
    } finally {
        await session.close();
        await client.close();
    }
}

async function run(session) {
    const first = await step('task_completed', async () => {
        tracing = true;
        const execution = await session.callTool('core_ingest_directory', { directory_path: sc.first_directory, kb_name: sc.kb_name },
            { task: { preference: 'require' } });
        const taskId = execution.handle?.taskId;
        check(typeof taskId === 'string' && taskId.length > 0, `not task-backed: ${JSON.stringify(execution.handle)}`);
        const { statuses, outcome } = await follow(execution);
        tracing = false;
        check(statuses[0]?.status === 'working', `first status ${JSON.stringify(statuses[0])}`);
        check(statuses.at(-1)?.status === 'completed' && outcome.status === 'completed', `settled ${outcome.status}: ${JSON.stringify(statuses)}`);
        const counts = statuses.map((s) => doneCount(s.statusMessage));
        check(counts.every((c, i) => i === 0 || c >= counts[i - 1]), `progress went back: ${JSON.stringify(statuses)}`);
        const result = resultFromTaskOutcome(outcome);
        const out = result.structuredContent;
        check(out?.job_id === taskId && out?.status === 'completed', `result ${JSON.stringify(out)}`);
        check(out.result?.files_total === sc.first_files && out.result?.files_indexed === sc.first_files && out.result?.directory_path === sc.first_directory,
            `the directory's result: ${JSON.stringify(out.result)}`);
        return { task_id: taskId, statuses, result: out };
    });
    report('wire', wire.length > 0, { exchange: wire });
    wire.length = 0;
    if (!modern && first) {
        await step('tasks_list', async () => {
            let cursor;
            let pages = 0;
            for (;;) {
                const page = await session.listTasks(cursor);
                pages++;
                const found = page.tasks.find((t) => t.taskId === first.task_id);
                if (found) return { pages, status: found.status };
                check(page.nextCursor !== undefined && pages < 20, `task ${first.task_id} not listed`);
                cursor = page.nextCursor;
            }
        });
    }
    await step('task_cancelled', async () => {
        tracing = true;
        const execution = await session.callTool('core_ingest_directory', { directory_path: sc.second_directory, kb_name: sc.kb_name },
            { task: { preference: 'require' } });
        const taskId = execution.handle?.taskId;
        check(typeof taskId === 'string' && taskId.length > 0, 'not task-backed');
        // Cancel it running: once a status says files are done.
        let running;
        for await (const event of execution.updates()) {
            if (event.type === 'outcome') throw new Error(`settled ${event.outcome.status} before it was seen running`);
            if (doneCount(event.task.statusMessage) > 0) {
                running = event.task.statusMessage;
                break;
            }
        }
        await session.cancelTask(taskId);
        const outcome = await execution.result();
        tracing = false;
        check(outcome.status === 'cancelled', `outcome ${JSON.stringify(outcome)}`);
        return { task_id: taskId, cancelled_at: running };
    });
    tracing = false;
    report('wire_cancel', wire.length > 0, { exchange: wire });
}

main()
    .catch((e) => report('main', false, { error: String(e?.stack ?? e) }))
    .finally(() => {
        console.log(JSON.stringify({ summary: true, passed, failed }));
        process.exit(failed > 0 ? 1 : 0);
    });
