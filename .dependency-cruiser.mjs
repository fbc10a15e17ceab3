// The layers of src/, checked by `npm run lint` (depcruise): a wrong import fails with the
// rule's name and the comment below it, which says why the rule exists. docs/architecture.md
// draws the same map.
//
//   domain/                    entities and pure rules: imports nothing of the others
//   storage/ ratelimit/ mail/  ports and their implementations: domain only
//   catalogue/ sources/ accounts/   the work the service does: domain and the ports
//   http/ (the API)  web/ (the pages)  cli/   the ways in: separate wings
//   app.ts server.ts deps.ts cli/main.ts   the composition root: builds and wires the rest
//   config.ts                  the environment parsed once into a typed object, passed down
//
// Unit tests sit beside the code (*.test.ts) and may reach across layers; they are checked for
// cycles only.

const test = '\\.test\\.ts$';
const rootFiles = '^src/(app|server|deps|logger|metrics|demo-seed)\\.ts$';

/** A rule that `from` (not its tests) imports nothing matching `to`. */
function layer(name, comment, from, to) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from, pathNot: test },
    to: { path: to },
  };
}

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'Modules that import each other cannot be understood, tested or moved one at a time: move what both need into a module of its own that imports neither.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    layer(
      'domain-imports-no-other-layer',
      'domain/ holds the entities and pure rules every layer shares; it must not depend on any of them (no I/O, no HTTP, no storage).',
      '^src/domain/',
      '^src/(?!domain/)',
    ),
    {
      name: 'domain-does-no-io',
      comment:
        'domain/ is pure: hashing, checksums and UUIDs only. Reading files, the network, a database or a framework belongs to the layers around it.',
      severity: 'error',
      from: { path: '^src/domain/', pathNot: test },
      to: {
        dependencyTypes: ['core', 'npm'],
        pathNot: '^(crypto|zlib|node:crypto|node:zlib)$|node_modules/uuid/',
      },
    },
    layer(
      'storage-knows-only-the-domain',
      'storage/ implements the ports over SQLite and PostgreSQL; it knows no HTTP, no pages, no CLI and none of the services that use it, so either engine can be tested on its own.',
      '^src/storage/',
      `^src/(?!(storage|domain)/)|${rootFiles}`,
    ),
    {
      name: 'storage-knows-no-http',
      comment:
        'storage/ knows no HTTP framework: answers are made in http/, from what storage returns.',
      severity: 'error',
      from: { path: '^src/(storage|domain|ratelimit|mail)/', pathNot: test },
      to: { path: 'node_modules/(fastify|@fastify)/' },
    },
    layer(
      'ratelimit-and-mail-stand-alone',
      'ratelimit/ and mail/ are ports with their implementations, chosen once in deps.ts: they use the domain and the parsed configuration, nothing above them.',
      '^src/(ratelimit|mail)/',
      `^src/(?!(ratelimit|mail|domain)/|config\\.ts$)|${rootFiles}`,
    ),
    layer(
      'services-below-the-ways-in',
      'catalogue/, sources/, accounts/ and webhooks/ do the work; the API, the pages and the CLI call them, never the other way round.',
      '^src/(catalogue|sources|accounts|webhooks)/',
      '^src/(http|web|cli)/|^src/(app|server|deps)\\.ts$',
    ),
    layer(
      'catalogue-does-not-use-sources',
      'sources/ registers guides and keeps them fresh by ingesting them into the catalogue; catalogue/ fills the catalogue from any input and knows nothing of registered sources. What both need (the guide download) lives in catalogue/ingest/.',
      '^src/catalogue/',
      '^src/sources/',
    ),
    layer(
      'api-is-not-the-pages',
      'http/ (the keyed JSON API) and web/ (the HTML pages) are separate wings: the API never renders or imports a page.',
      '^src/http/',
      '^src/web/',
    ),
    layer(
      'pages-are-not-the-api',
      'web/ (the HTML pages) may share HTTP plumbing (errors, security headers, the OpenAPI document, the playground constants), never the keyed API: its authorisation, route answers and caches.',
      '^src/web/',
      '^src/http/(v1|answers)/|^src/http/(api-guard|authorize)\\.ts$',
    ),
    layer(
      'only-the-cli-uses-the-cli',
      'cli/ is a way in: nothing in the service depends on a command.',
      '^src/(?!cli/)',
      '^src/cli/',
    ),
    layer(
      'composition-root-on-top',
      'app.ts, server.ts, deps.ts and open-store.ts wire everything together; a layer that imported them would depend on every other layer.',
      '^src/(domain|storage|ratelimit|mail|catalogue|sources|accounts|webhooks|http|web)/',
      '^src/(app|server|deps|open-store)\\.ts$',
    ),
    layer(
      'src-does-not-use-tests',
      'What ships is src/; test/ and bench/ are not part of it.',
      '^src/',
      '^(test|bench)/',
    ),
    {
      name: 'src-uses-no-dev-dependency',
      comment:
        'src/ runs in production, where devDependencies are not installed (tests and tooling may use them).',
      severity: 'error',
      from: { path: '^src/', pathNot: test },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
