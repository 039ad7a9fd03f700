/**
 * The repository analysis behind `deploy` (issue 15 §2) on real checkouts made with git: frameworks
 * from pyproject.toml, manage.py and package.json, Procfile start commands, compose GPU reservations and
 * model sizes, secret-looking variables in `.env.example`, and files that must not be followed.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { analyseRepo, modelMemoryGb } from '../../engine/producers/deploy/analyse.js';
import { makeRepo } from '../support/git-repos.js';

test('pyproject.toml (PEP 621) with flask and gunicorn: a Flask app started by gunicorn on the port its code names', () => {
  const repo = makeRepo('flask-svc', {
    'pyproject.toml': '[project]\nname = "svc"\ndependencies = [\n  "Flask>=3.0",\n  "gunicorn==22.0.0",\n]\n',
    'svc/web.py': 'from flask import Flask\nserver = Flask(__name__)\n\nif __name__ == "__main__":\n    server.run(port=8081)\n',
  });
  const s = analyseRepo(repo.dir);
  assert.is(s.language, 'python');
  assert.is(s.framework, 'flask');
  assert.is(s.start, 'gunicorn -b 0.0.0.0:$PORT svc.web:server');
  assert.is(s.port, 8081);
  assert.is(s.gpu.needed, false);
});

test('poetry dependencies with jax, a Django manage.py: GPU needed, runserver on 8000', () => {
  const repo = makeRepo('django-svc', {
    'pyproject.toml': '[tool.poetry.dependencies]\npython = "^3.11"\ndjango = "^5.0"\njax = {extras = ["cuda12"], version = "^0.4"}\n',
    'manage.py': '#!/usr/bin/env python\n',
  });
  const s = analyseRepo(repo.dir);
  assert.is(s.framework, 'django');
  assert.is(s.start, 'python manage.py runserver 0.0.0.0:$PORT');
  assert.is(s.port, 8000);
  assert.is(s.gpu.needed, true);
  assert.match(s.gpu.reasons.join(), /jax/);
});

test('a Next.js app: npm start on 3000; a Procfile web line wins as the start command', () => {
  const next = analyseRepo(makeRepo('next-app', { 'package.json': JSON.stringify({ scripts: { start: 'next start' }, dependencies: { next: '14.2.0', react: '18' } }) }).dir);
  assert.is(next.framework, 'next');
  assert.is(next.start, 'npm start');
  assert.is(next.port, 3000);
  const proc = analyseRepo(makeRepo('proc', { 'requirements.txt': 'fastapi\n', 'Procfile': 'web: uvicorn api:app --host 0.0.0.0 --port 9000\n' }).dir);
  assert.is(proc.start, 'uvicorn api:app --host 0.0.0.0 --port 9000');
  assert.is(proc.port, 9000, 'the Procfile port replaces the framework default');
});

test('compose: a vllm image with a GPU reservation and a declared model; the service with ports is the one deployed', () => {
  const repo = makeRepo('llm', {
    'docker-compose.yml': [
      'services:',
      '  llm:',
      '    image: vllm/vllm-openai:v0.6.3',
      '    command: --model mistralai/Mistral-7B-Instruct-v0.3',
      '    ports: ["8000:8000"]',
      '    deploy:',
      '      resources:',
      '        reservations:',
      '          devices:',
      '            - driver: nvidia',
      '              count: 1',
      '              capabilities: [gpu]',
      '  metrics:',
      '    image: prom/prometheus:v2.53.0',
      '',
    ].join('\n'),
    '.env.example': 'HF_TOKEN=\nDATABASE_PASSWORD=\nPUBLIC_URL=\n',
  });
  const s = analyseRepo(repo.dir);
  assert.is(s.image, 'vllm/vllm-openai:v0.6.3');
  assert.is(s.runtime, 'compose');
  assert.is(s.port, 8000);
  assert.is(s.gpu.needed, true);
  assert.is(s.gpu.memoryGb, 17, '7B parameters at 2 bytes plus a fifth');
  assert.equal(s.env, [
    { name: 'HF_TOKEN', secret: true },
    { name: 'DATABASE_PASSWORD', secret: true },
    { name: 'PUBLIC_URL', secret: false },
  ]);
});

test('a CUDA base image in the Dockerfile means a GPU; two EXPOSE ports are left for the user to choose', () => {
  const s = analyseRepo(makeRepo('cuda', { Dockerfile: 'FROM --platform=linux/amd64 nvidia/cuda:12.4.1-runtime-ubuntu22.04\nEXPOSE 8000 9090\nCMD python3 serve.py\n' }).dir);
  assert.is(s.gpu.needed, true);
  assert.equal(s.dockerfile?.from, ['nvidia/cuda:12.4.1-runtime-ubuntu22.04']);
  assert.is(s.port, undefined);
  assert.equal(s.portCandidates, [8000, 9090]);
  assert.is(s.start, 'python3 serve.py');
});

test('Windows files: a package.json with a byte-order mark and CRLF line ends everywhere are read like any other', () => {
  const s = analyseRepo(
    makeRepo('win', {
      'package.json': '\uFEFF{\r\n  "scripts": { "start": "node app.js" },\r\n  "dependencies": { "express": "4" }\r\n}\r\n',
      'app.js': 'require("express")().listen(8080);\r\n',
      '.env.example': 'DB_PASSWORD=\r\nREGION=eu\r\n',
    }).dir,
  );
  assert.is(s.framework, 'express');
  assert.is(s.start, 'npm start');
  assert.is(s.port, 8080);
  assert.equal(s.env, [{ name: 'DB_PASSWORD', secret: true }, { name: 'REGION', secret: false }]);
});

test('a requirements.txt that is a symlink out of the repository is not followed to a device; a declared size wins', () => {
  const repo = makeRepo('odd', { 'app.py': 'print(1)\n' });
  symlinkSync('/dev/zero', join(repo.dir, 'requirements.txt'));
  const s = analyseRepo(repo.dir);
  assert.is(s.gpu.needed, false, 'read nothing from /dev/zero (and did not hang)');
  assert.is(modelMemoryGb('MODEL=org/Llama-3-70B\nMODEL_SIZE_GB=48\n'), 48);
  assert.is(modelMemoryGb('MODEL=org/Llama-3-70B\n'), 168);
  assert.is(modelMemoryGb('nothing here'), undefined);
});

test.run();
