// Drives a running `mascot serve` with the official OpenAI JS client and
// prints one JSON object with what it got; the Go test asserts on it.
// Usage: node openai_client.cjs <openai package dir> <base URL> <model>
const [pkgDir, baseURL, model] = process.argv.slice(2);
const mod = require(require('path').join(pkgDir, 'node_modules', 'openai'));
const OpenAI = mod.OpenAI || mod.default || mod;

const schema = JSON.parse(process.env.JUDGE_SCHEMA);

async function main() {
  const client = new OpenAI({ apiKey: 'EMPTY', baseURL, maxRetries: 0 });
  const out = { version: mod.VERSION || '' };
  const messages = [{ role: 'user', content: 'Say something kind.' }];

  const models = await client.models.list();
  out.models = models.data.map((m) => m.id);

  const plain = await client.chat.completions.create({ model, messages, max_tokens: 12, temperature: 0 });
  out.plain = { content: plain.choices[0].message.content, finish: plain.choices[0].finish_reason, usage: plain.usage };

  const two = await client.chat.completions.create({ model, messages, n: 2, seed: 11, max_tokens: 12 });
  out.n2 = two.choices.map((c) => c.message.content);

  const seeded = [];
  for (let i = 0; i < 2; i++) {
    const r = await client.chat.completions.create({ model, messages, seed: 7, temperature: 0.9, max_tokens: 16 });
    seeded.push(r.choices[0].message.content);
  }
  out.seeded = seeded;

  const stream = await client.chat.completions.create({ model, messages, seed: 7, temperature: 0.9, max_tokens: 16, stream: true });
  let text = '';
  let finish = null;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    for (const c of chunk.choices) {
      if (c.delta && c.delta.content) text += c.delta.content;
      if (c.finish_reason) finish = c.finish_reason;
    }
  }
  out.stream = { text, finish, chunks };

  const js = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Judge the reply.' }], seed: 3, max_tokens: 160,
    response_format: { type: 'json_schema', json_schema: { name: 'judge', schema, strict: true } },
    chat_template_kwargs: { enable_thinking: false },
  });
  out.json = js.choices[0].message.content;
  out.jsonFinish = js.choices[0].finish_reason;

  try {
    await client.chat.completions.create({ model: 'no-such-model', messages, max_tokens: 2 });
    out.notFound = 'no error';
  } catch (e) {
    out.notFound = { status: e.status, message: e.message };
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
