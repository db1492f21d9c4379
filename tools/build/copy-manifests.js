#!/usr/bin/env node
// Copies what `npm ci` reads, and nothing else, from <from> to <to>, keeping the paths:
// package.json and package-lock.json of the root, plus the package.json of every workspace the root's
// "workspaces" names ("dir/*" or a plain dir). deploy/Dockerfile installs dependencies from this
// copy, so its install layers are rebuilt only when a manifest changes, not on every source edit.
//   node tools/build/copy-manifests.js <from> <to>
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  process.stderr.write('usage: node tools/build/copy-manifests.js <from> <to>\n');
  process.exit(2);
}

const root = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8'));
const files = ['package.json', 'package-lock.json'];
for (const pattern of root.workspaces ?? []) {
  const dirs = pattern.endsWith('/*')
    ? fs.readdirSync(path.join(from, pattern.slice(0, -2))).map((entry) => path.join(pattern.slice(0, -2), entry))
    : [pattern];
  for (const dir of dirs) if (fs.existsSync(path.join(from, dir, 'package.json'))) files.push(path.join(dir, 'package.json'));
}
for (const file of files) {
  fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
  fs.copyFileSync(path.join(from, file), path.join(to, file));
}
process.stdout.write(`copied ${files.length} manifests to ${to}\n`);
