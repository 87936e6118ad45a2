// Writes corpus.json: the texts the golden tests encode. Run once with
// `node make-corpus.js`; the output is committed. Everything here was
// written for this project (no third-party text).
"use strict";
const fs = require("fs");

const c = [];
const add = (name, text) => c.push({ name, text });

// ShareGPT-like English prompts and replies.
add("en-question", "Can you explain the difference between a process and a thread in an operating system? Please give a short example.");
add("en-reply", "Sure! A process is an independent program in execution, with its own memory space. A thread is the smallest unit of execution within a process; threads of the same process share memory.\n\nFor example, a web browser may run each tab as a separate process, while each tab uses several threads to render the page and run scripts.");
add("en-markdown", "## Summary\n\n* **Latency** fell by 23%.\n* _Throughput_ rose to 1,250 req/s.\n\n> Note: results vary with batch size.\n\n1. Install the package.\n2. Run `make test`.\n");
add("en-contractions", "I'm sure you're right, but we'd better check: they'll say it's fine, I've heard. DON'T PANIC, He'LL come. It'S ok.");
add("en-dialogue", "User: What's the capital of France?\nAssistant: The capital of France is Paris.\nUser: And its population?\nAssistant: About 2.1 million people live in the city proper.");
add("en-long-word", "Pneumonoultramicroscopicsilicovolcanoconiosis and antidisestablishmentarianism are long words.");
add("en-urls", "See https://example.com/path/to/page?query=1&lang=en#section or mail admin@example.org; files live in /var/lib/perflab/results_2026-01-31.json.");
add("en-punct", "Wait... what?! No way!!! (Really?) [yes] {maybe} <tag> -- \"quoted\" 'single' `tick` ~tilde~ ^caret^ |pipe| \\back\\slash");
add("en-caps", "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG. The Quick Brown Fox. tHe qUiCk bRoWn fOx.");

// Code.
add("code-python", "def fib(n: int) -> int:\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n\nif __name__ == \"__main__\":\n    print(fib(30))\n");
add("code-go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 10; i++ {\n\t\tif i%2 == 0 {\n\t\t\tfmt.Printf(\"%d is even\\n\", i)\n\t\t}\n\t}\n}\n");
add("code-js", "const sum = (xs) => xs.reduce((a, b) => a + b, 0);\nconsole.log(sum([1, 2, 3])); // 6\nexport default { sum };\n");
add("code-json", "{\"model\": \"qwen3-8b\", \"prompt\": \"Hello\", \"max_tokens\": 128, \"stream\": true, \"stop\": [\"\\n\\n\"], \"temperature\": 0.0}");
add("code-shell", "#!/usr/bin/env bash\nset -euo pipefail\nfor f in *.json; do\n  jq '.ttft_ms' \"$f\" | sort -n | tail -1\ndone 2>/dev/null || echo \"no files\" >&2\n");
add("code-sql", "SELECT engine, AVG(ttft_ms) AS ttft FROM runs WHERE gpu = 'H100' GROUP BY engine ORDER BY ttft DESC LIMIT 10;");
add("code-html", "<div class=\"chart\" id=\"ttft-1\"><span>TTFT&nbsp;(ms)</span></div>\n<!-- comment -->");

// CJK and other scripts.
add("zh", "你好，世界！今天天气很好，我们去公园散步吧。机器学习是人工智能的一个分支。");
add("zh-long", "大型语言模型的推理性能取决于许多因素，包括批处理大小、量化方法、并行策略以及显存带宽。在生产环境中，我们通常关注首个令牌延迟和每秒输出令牌数。");
add("ja", "こんにちは、世界。東京は日本の首都です。カタカナとひらがなを混ぜて書きます：コンピューター、ありがとう。");
add("ko", "안녕하세요, 세계! 오늘은 날씨가 좋네요. 한국어 문장을 토큰화합니다.");
add("ru", "Привет, мир! Быстрая коричневая лиса прыгает через ленивую собаку.");
add("el", "Γειά σου Κόσμε! Η γρήγορη καφέ αλεπού.");
add("ar", "مرحبا بالعالم! هذه جملة باللغة العربية.");
add("he", "שלום עולם! זה משפט בעברית.");
add("hi", "नमस्ते दुनिया! यह हिंदी में एक वाक्य है।");
add("th", "สวัสดีชาวโลก นี่คือประโยคภาษาไทย");
add("mixed-scripts", "English, 中文, 日本語, 한국어, русский, العربية and हिन्दी in one line.");
add("accents", "café naïve façade résumé jalapeño Ångström coöperate São Paulo Zürich");

// Unicode normalization (NFC composes these).
add("nfc-combining", "e\u0301 a\u0300 o\u0308 n\u0303 A\u030A \u1100\u1161\u11A8 cafe\u0301");
add("nfc-mixed", "Precomposed \u00e9 vs decomposed e\u0301; \u212B (angstrom sign) and \u00C5.");

// Emoji.
add("emoji", "I love it 😀😂🤣! 👍🏽 thumbs, 👨‍👩‍👧‍👦 family, 🇩🇪🇯🇵 flags, ❤️ heart, 🧑‍💻 coder.");
add("emoji-only", "🚀🚀🚀🔥💯");

// Whitespace runs.
add("ws-double", "a  b   c    d");
add("ws-leading", "   leading spaces");
add("ws-trailing", "trailing spaces   ");
add("ws-newlines", "line one\n\n\nline two\n \n \nline three\n");
add("ws-tabs", "\tone\t\ttwo\t \tthree");
add("ws-crlf", "windows\r\nline\r\n\r\nends\r\n");
add("ws-mixed", " \t \n \r\n  \u00a0 \u3000 x \u2003 y");
add("ws-only", "     \n\n   ");
add("single-space", " ");
add("empty", "");

// Numbers.
add("num-int", "1 12 123 1234 12345 123456 1234567 12345678901234567890");
add("num-float", "3.14159 2.71828 -0.5 1e-9 6.022e23 0.000001");
add("num-grouped", "1,000,000 and 1.000.000 and 1 000 000; $1,234.56; 50%");
add("num-dates", "2026-11-22T08:55:19Z, 22/11/2026, 08:55, v1.11.0, 10.0.0.1:8080");
add("num-unicode", "١٢٣ ٤٥٦ (Arabic-Indic), １２３ (fullwidth), ½ ¾ ², Ⅻ");

// Special tokens of each family, and near misses.
add("special-chatml", "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n");
add("special-endoftext", "first document<|endoftext|>second document");
add("special-llama3", "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
add("special-llama2", "<s>[INST] Hello [/INST] Hi!</s><s>[INST] again [/INST]");
add("special-near-miss", "<|im_start <|im_end| |endoftext|> <|begin_of_text <s >< /s> <|endofprompt|>");
add("special-qwen-tools", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><think>\nreasoning\n</think>");

// Long text: exercises the heap path of long BPE words (Llama 2 has no
// pre-tokenizer, so a paragraph is one word).
let long = "";
for (let i = 0; i < 40; i++) {
  long += `Paragraph ${i}: benchmarking language-model servers means measuring time to first token, inter-token latency and throughput under load. `;
}
add("long-english", long);
let longZh = "";
for (let i = 0; i < 30; i++) longZh += "我们测量首个令牌延迟、令牌间延迟和吞吐量。";
add("long-zh", longZh);
add("long-run-letters", "a".repeat(300) + " " + "ab".repeat(200));
add("long-run-spaces", "x" + " ".repeat(200) + "y" + "\n".repeat(50) + "z");
add("long-digits", "9".repeat(100));

// Fuzz-like texts: deterministic random strings over an alphabet full of
// edge cases (every kind of whitespace but U+0085 and U+FEFF, where the
// JavaScript reference's \s differs from Rust's; letters of several
// scripts and cases, title case, modifier letters, combining marks, digits
// of several scripts, punctuation, symbols, emoji with modifiers and ZWJ,
// apostrophes and contraction letters, special-token fragments).
let seed = 20261122;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const alphabet = Array.from(
  "aZ sStTrReEvVmMlLdD'''\"\r\n\n\t\v\f   \u00a0\u3000\u2003\u2028\u200b" +
  "你好世界ひらカタ한글éßΣσжЖ\u0301\u0308١٢٣４5½Ⅻ0123456789.,!?;:-_/\\()[]{}<>@#$%^&*+=~`|" +
  "😀👍🏽\u200d❤\ufe0fſ\u212aAbCdEFGHijklMNOP\u01c5\u02b0\u30fc\u0e01\u0e34\u0915\u093e\u20dd\u0903" +
  "▁Ġ<|>s/"
);
// No "</s>": llama.cpp treats that ordinary Qwen token as a control token
// (see crosscheck_test.go), which would hide other differences.
const fragments = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<s>", "<|begin_of_text|>", "<|eot_id|>", "'s", "'LL", "  ", "\n\n", "123456"];
for (let i = 0; i < 120; i++) {
  let t = "";
  const n = rnd(60);
  for (let k = 0; k < n; k++) t += rnd(12) === 0 ? fragments[rnd(fragments.length)] : alphabet[rnd(alphabet.length)];
  add(`fuzz-${i}`, t);
}

fs.writeFileSync(__dirname + "/corpus.json", JSON.stringify(c, null, 1) + "\n");
console.log(`wrote ${c.length} texts`);
