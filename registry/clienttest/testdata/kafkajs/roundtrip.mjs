// Round trip of the npm client @kafkajs/confluent-schema-registry against a
// running Charter registry.
//
//   node roundtrip.mjs http://127.0.0.1:8081
//
// With REGISTRY_USER and REGISTRY_PASSWORD set, every request carries HTTP
// basic credentials (the client's own `auth` option); with REGISTRY_TOKEN,
// a bearer token (through the client's `middlewares` option).
//
// Prints one line per check and exits 1 on the first mismatch (2 on bad usage).
import assert from 'node:assert/strict';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';

const url = process.argv[2];
if (!url) {
  console.error('usage: node roundtrip.mjs <registry-url>');
  process.exit(2);
}

const subject = 'kafkajs-orders-value';
const v1 = {
  type: 'record',
  name: 'Order',
  namespace: 'com.example.kafkajs',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'customer', type: 'string' },
    { name: 'tags', type: { type: 'array', items: 'string' } },
  ],
};
// v2 adds a field with a default: BACKWARD compatible.
const v2 = { ...v1, fields: [...v1.fields, { name: 'currency', type: 'string', default: 'EUR' }] };
// bad adds a field without a default: not BACKWARD compatible.
const bad = { ...v1, fields: [...v1.fields, { name: 'amount', type: 'double' }] };

// clientArgs are the SchemaRegistry options of every client made here.
const clientArgs = { host: url, retry: { retries: 0 } };
const authHeaders = {};
if (process.env.REGISTRY_USER) {
  clientArgs.auth = { username: process.env.REGISTRY_USER, password: process.env.REGISTRY_PASSWORD ?? '' };
  authHeaders.Authorization = 'Basic ' + Buffer.from(`${clientArgs.auth.username}:${clientArgs.auth.password}`).toString('base64');
} else if (process.env.REGISTRY_TOKEN) {
  authHeaders.Authorization = `Bearer ${process.env.REGISTRY_TOKEN}`;
  clientArgs.middlewares = [() => ({ request: (req) => req.enhance({ headers: { Authorization: authHeaders.Authorization } }) })];
}

const avro = (schema) => ({ type: SchemaType.AVRO, schema: JSON.stringify(schema) });

// raw calls the REST API directly, to check what the client relies on.
async function raw(method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json', ...authHeaders },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path}: status ${res.status}, body is not JSON: ${text}`);
  }
  return { status: res.status, json };
}

async function step(name, fn) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (err) {
    console.log(`not ok - ${name}`);
    console.error(err);
    process.exit(1);
  }
}

const registry = new SchemaRegistry(clientArgs);
let id1;
let id2;
let message1;

await step('GET /config/{subject} before the first registration is 404 / 40408', async () => {
  const r = await raw('GET', `/config/${subject}`);
  assert.equal(r.status, 404);
  assert.equal(r.json.error_code, 40408);
});

await step('register v1 (first registration also PUTs the subject config)', async () => {
  ({ id: id1 } = await registry.register(avro(v1), { subject }));
  assert.ok(Number.isInteger(id1) && id1 > 0, `id ${id1}`);
  const r = await raw('GET', `/config/${subject}`);
  assert.equal(r.status, 200);
  assert.equal(r.json.compatibilityLevel, 'BACKWARD');
});

await step('register v1 again, from a client with an empty cache: same id', async () => {
  const fresh = new SchemaRegistry(clientArgs);
  const { id } = await fresh.register(avro(v1), { subject });
  assert.equal(id, id1);
});

await step('look up ids: by subject+version, latest, by schema', async () => {
  const fresh = new SchemaRegistry(clientArgs);
  assert.equal(await fresh.getRegistryId(subject, 1), id1);
  assert.equal(await fresh.getRegistryId(subject, 'latest'), id1);
  assert.equal(await fresh.getLatestSchemaId(subject), id1);
  assert.equal(await fresh.getRegistryIdBySchema(subject, avro(v1)), id1);
});

await step('encode and decode a record with v1', async () => {
  const record = { id: 1001, customer: 'Zoë', tags: ['a', 'b'] };
  message1 = await registry.encode(id1, record);
  assert.equal(message1[0], 0, 'magic byte');
  assert.equal(message1.readInt32BE(1), id1, 'schema id in the wire header');
  // A client that has never seen the schema fetches it by id.
  const fresh = new SchemaRegistry(clientArgs);
  assert.deepEqual({ ...(await fresh.decode(message1)) }, record);
  const schema = await fresh.getSchema(id1);
  assert.equal(schema.name, 'com.example.kafkajs.Order');
});

await step('compatibility endpoint: v2 compatible, bad not', async () => {
  // The client exposes the endpoint on its API object only.
  const ok = await registry.api.Subject.compatible({ subject, body: { schema: JSON.stringify(v2) } });
  assert.equal(ok.data().is_compatible, true);
  const no = await registry.api.Subject.compatible({ subject, body: { schema: JSON.stringify(bad) } });
  assert.equal(no.data().is_compatible, false);
});

await step('register an incompatible schema: refused with 409', async () => {
  await assert.rejects(registry.register(avro(bad), { subject }), (err) => {
    assert.equal(err.status, 409, `status ${err.status}: ${err.message}`);
    return true;
  });
});

await step('register v2 (adds a field with a default): new id, version 2', async () => {
  ({ id: id2 } = await registry.register(avro(v2), { subject }));
  assert.ok(id2 > 0 && id2 !== id1, `id ${id2}`);
  const r = await raw('GET', `/subjects/${subject}/versions/latest`);
  assert.equal(r.json.version, 2);
  assert.equal(r.json.id, id2);
});

await step('decode v1 bytes with v2 as reader schema: default filled', async () => {
  const fresh = new SchemaRegistry(clientArgs);
  const reader = await fresh.getSchema(id2);
  const got = await fresh.decode(message1, { [SchemaType.AVRO]: { readerSchema: reader } });
  assert.deepEqual({ ...got }, { id: 1001, customer: 'Zoë', tags: ['a', 'b'], currency: 'EUR' });
});

await step('register under a new subject with compatibility NONE', async () => {
  const other = 'kafkajs-audit-value';
  const { id } = await registry.register(avro(v1), { subject: other, compatibility: 'NONE' });
  assert.equal(id, id1, 'same schema, same id under every subject');
  const r = await raw('GET', `/config/${other}`);
  assert.equal(r.json.compatibilityLevel, 'NONE');
  // Under NONE the schema refused above is accepted.
  const { id: idBad } = await registry.register(avro(bad), { subject: other, compatibility: 'NONE' });
  assert.ok(idBad !== id1 && idBad !== id2, `id ${idBad}`);
});

await step('a subject config that differs from the requested level is reported', async () => {
  await assert.rejects(
    registry.register(avro(v2), { subject: 'kafkajs-audit-value', compatibility: 'BACKWARD' }),
    /Compatibility does not match the configuration \(BACKWARD != NONE\)/,
  );
});

// Protobuf: kafkajs sends .proto text (protobufjs) and encodes with the
// message index of the first message.
const proto = `syntax = "proto3";
package acme.kafkajs;

message Parcel {
  int64 id = 1;
  string carrier = 2;
  repeated string labels = 3;
}
`;
await step('Protobuf: register .proto text, encode, decode with a fresh client', async () => {
  const { id } = await registry.register({ type: SchemaType.PROTOBUF, schema: proto }, { subject: 'kafkajs-parcels-value' });
  assert.ok(id > 0, `id ${id}`);
  const r = await raw('GET', `/schemas/ids/${id}`);
  assert.equal(r.json.schemaType, 'PROTOBUF');
  const msg = await registry.encode(id, { id: 5, carrier: 'UPS', labels: ['fragile'] });
  assert.equal(msg.readInt32BE(1), id, 'schema id in the wire header');
  const got = await new SchemaRegistry(clientArgs).decode(msg);
  assert.equal(got.carrier, 'UPS');
  assert.equal(Number(got.id), 5);
  assert.deepEqual(got.labels, ['fragile']);
  // The same text again gets the same id.
  const again = await new SchemaRegistry(clientArgs).register({ type: SchemaType.PROTOBUF, schema: proto }, { subject: 'kafkajs-parcels-value' });
  assert.equal(again.id, id);
});

// JSON Schema: kafkajs validates with ajv when encoding.
const invoice = {
  $schema: 'http://json-schema.org/draft-07/schema#', title: 'Invoice', type: 'object',
  properties: { number: { type: 'string' }, total: { type: 'number' } }, required: ['number'],
};
await step('JSON Schema: register, encode (validated), decode; an invalid object is refused', async () => {
  const { id } = await registry.register({ type: SchemaType.JSON, schema: JSON.stringify(invoice) }, { subject: 'kafkajs-invoices-value' });
  assert.ok(id > 0, `id ${id}`);
  const msg = await registry.encode(id, { number: 'INV-1', total: 9.5 });
  assert.deepEqual(await new SchemaRegistry(clientArgs).decode(msg), { number: 'INV-1', total: 9.5 });
  await assert.rejects(registry.encode(id, { total: 1 }));
});

console.log('kafkajs round trip: all checks passed');
