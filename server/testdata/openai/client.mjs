// The official openai npm client (v7) against Moteur's OpenAI-compatible
// door. Run by server/openai_node_test.go with node 22:
//
//   node client.mjs SCENARIO
//
// with OPENAI_MODULE (the file: URL of the package's entry point),
// OPENAI_BASE_URL, OPENAI_API_KEY and MOTEUR_MODEL (an agent id) in the
// environment. It prints one JSON object on stdout, which the Go test
// checks; a thrown error exits non-zero with its message on stderr.
const { default: OpenAI } = await import(process.env.OPENAI_MODULE);

const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, maxRetries: 0 });
const model = process.env.MOTEUR_MODEL;
const messages = [{ role: 'user', content: process.env.MOTEUR_QUESTION || 'say hello' }];

async function complete() {
  const { data, response } = await client.chat.completions.create({ model, messages }).withResponse();
  return {
    object: data.object,
    model: data.model,
    content: data.choices[0].message.content,
    role: data.choices[0].message.role,
    finish_reason: data.choices[0].finish_reason,
    usage: data.usage,
    session_id: data.session_id,
    header_session: response.headers.get('x-moteur-session'),
    citations: data.citations ?? [],
    denied_calls: data.denied_calls ?? [],
  };
}

async function stream() {
  const s = await client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
  let content = '';
  let chunks = 0;
  let finish = null;
  let usage = null;
  let last = null;
  for await (const chunk of s) {
    chunks++;
    for (const choice of chunk.choices) {
      content += choice.delta?.content ?? '';
      if (choice.finish_reason) {
        finish = choice.finish_reason;
        last = chunk;
      }
    }
    if (chunk.usage) usage = chunk.usage;
  }
  // The stream helper accumulates the same chunks into a completion.
  const runner = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'and again' }] });
  const final = await runner.finalChatCompletion();
  return {
    content, chunks, finish_reason: finish, usage,
    session_id: last?.session_id, citations: last?.citations ?? [],
    helper_content: final.choices[0].message.content,
  };
}

async function models() {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  const one = await client.models.retrieve(model);
  return { ids, retrieved: one.id };
}

async function errors() {
  const out = {};
  try {
    await client.chat.completions.create({ model: 'no-such-agent', messages });
  } catch (e) {
    out.unknown_model = { name: e.constructor.name, status: e.status, code: e.code, message: e.message };
  }
  try {
    await new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: 'mk_bad_bad', maxRetries: 0 })
      .chat.completions.create({ model, messages });
  } catch (e) {
    out.bad_key = { name: e.constructor.name, status: e.status, code: e.code, message: e.message };
  }
  try {
    await client.chat.completions.create({ model, messages, tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] });
  } catch (e) {
    out.client_tools = { name: e.constructor.name, status: e.status, code: e.code, message: e.message };
  }
  return out;
}

// failure: a turn whose model fails, asked with the client's default
// retries, which the door's X-Should-Retry: false turns off.
async function failure() {
  try {
    await new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY })
      .chat.completions.create({ model, messages });
    return { error: null };
  } catch (e) {
    return { error: { name: e.constructor.name, status: e.status, code: e.code, message: e.message } };
  }
}

const scenarios = { complete, stream, models, errors, failure };
const run = scenarios[process.argv[2]];
if (!run) {
  console.error(`unknown scenario ${process.argv[2]}: want one of ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
console.log(JSON.stringify(await run()));
