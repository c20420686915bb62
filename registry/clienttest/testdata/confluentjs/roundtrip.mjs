// Round trip of Confluent's official JavaScript client,
// @confluentinc/schemaregistry, against a running Charter registry:
// client calls, then Avro, JSON Schema and Protobuf serde.
//
//   node roundtrip.mjs http://127.0.0.1:8081
//
// With REGISTRY_USER and REGISTRY_PASSWORD set, the client sends HTTP
// basic credentials (basicAuthCredentials USER_INFO); with REGISTRY_TOKEN,
// a static bearer token (bearerAuthCredentials STATIC_TOKEN).
//
// Prints one line per check and exits 1 on the first failure (2 on bad
// usage).
import assert from 'node:assert/strict';
import {
  SchemaRegistryClient, SerdeType,
  AvroSerializer, AvroDeserializer,
  JsonSerializer, JsonDeserializer,
  ProtobufSerializer, ProtobufDeserializer,
} from '@confluentinc/schemaregistry';
import { create, createFileRegistry, createMutableRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

const url = process.argv[2];
if (!url) {
  console.error('usage: node roundtrip.mjs <registry-url>');
  process.exit(2);
}

const config = { baseURLs: [url], maxRetries: 0 };
if (process.env.REGISTRY_USER) {
  config.basicAuthCredentials = { credentialsSource: 'USER_INFO', userInfo: `${process.env.REGISTRY_USER}:${process.env.REGISTRY_PASSWORD ?? ''}` };
} else if (process.env.REGISTRY_TOKEN) {
  config.bearerAuthCredentials = { credentialsSource: 'STATIC_TOKEN', token: process.env.REGISTRY_TOKEN,
    logicalCluster: 'lsrc-charter', identityPoolId: 'pool-charter' };
}
// fresh returns a client with empty caches, so each call reaches the
// registry.
const fresh = () => new SchemaRegistryClient(config);

async function check(what, fn) {
  try {
    await fn();
    console.log(`ok   ${what}`);
  } catch (e) {
    console.log(`FAIL ${what}: ${e?.stack ?? e}`);
    process.exit(1);
  }
}

const order = {
  type: 'record', name: 'Order', namespace: 'com.example.confluentjs',
  fields: [{ name: 'id', type: 'long' }, { name: 'customer', type: 'string' }],
};
const orderV2 = { ...order, fields: [...order.fields, { name: 'currency', type: 'string', default: 'EUR' }] };
const orderBad = { ...order, fields: [...order.fields, { name: 'amount', type: 'double' }] };
const avro = (s) => ({ schemaType: 'AVRO', schema: JSON.stringify(s) });
const subject = 'confluentjs-orders-value';
let id;

await check('register', async () => {
  id = await fresh().register(subject, avro(order));
  assert.ok(id > 0, `id ${id}`);
});
await check('register again gives the same ID', async () => {
  assert.equal(await fresh().register(subject, avro(order)), id);
});
await check('getId (lookup)', async () => {
  assert.equal(await fresh().getId(subject, avro(order)), id);
});
await check('getBySubjectAndId', async () => {
  const info = await fresh().getBySubjectAndId(subject, id);
  assert.deepEqual(JSON.parse(info.schema), order);
});
await check('getLatestSchemaMetadata', async () => {
  const md = await fresh().getLatestSchemaMetadata(subject);
  assert.equal(md.id, id);
  assert.equal(md.version, 1);
});
await check('getAllVersions and getAllSubjects', async () => {
  assert.deepEqual(await fresh().getAllVersions(subject), [1]);
  assert.ok((await fresh().getAllSubjects()).includes(subject));
});
await check('testCompatibility: a field with a default is compatible, one without is not', async () => {
  assert.equal(await fresh().testCompatibility(subject, 1, avro(orderV2)), true);
  assert.equal(await fresh().testCompatibility(subject, 1, avro(orderBad)), false);
});
await check('updateCompatibility and getCompatibility of the subject', async () => {
  assert.equal(await fresh().updateCompatibility(subject, 'FULL'), 'FULL');
  assert.equal(await fresh().getCompatibility(subject), 'FULL');
});
await check('an incompatible registration is refused with 409', async () => {
  await fresh().updateCompatibility(subject, 'BACKWARD');
  await assert.rejects(fresh().register(subject, avro(orderBad)), (e) => e.status === 409);
});

await check('Avro serde: serialize with the latest version, deserialize', async () => {
  const ser = new AvroSerializer(fresh(), SerdeType.VALUE, { useLatestVersion: true });
  const bytes = await ser.serialize('confluentjs-orders', { id: 42, customer: 'café ☕' });
  assert.equal(bytes[0], 0);
  assert.equal(bytes.readUInt32BE(1), id);
  const de = new AvroDeserializer(fresh(), SerdeType.VALUE, {});
  const back = await de.deserialize('confluentjs-orders', bytes);
  assert.equal(back.customer, 'café ☕');
  assert.equal(Number(back.id), 42);
});

const payment = {
  $schema: 'http://json-schema.org/draft-07/schema#', title: 'Payment', type: 'object',
  properties: { id: { type: 'integer' }, amount: { type: 'number' } }, required: ['id'],
};
await check('JSON Schema serde: serialize with the latest version (validated), deserialize', async () => {
  await fresh().register('confluentjs-payments-value', { schemaType: 'JSON', schema: JSON.stringify(payment) });
  const ser = new JsonSerializer(fresh(), SerdeType.VALUE, { useLatestVersion: true, validate: true });
  const bytes = await ser.serialize('confluentjs-payments', { id: 7, amount: 12.5 });
  const de = new JsonDeserializer(fresh(), SerdeType.VALUE, { validate: true });
  assert.deepEqual(await de.deserialize('confluentjs-payments', bytes), { id: 7, amount: 12.5 });
  await assert.rejects(ser.serialize('confluentjs-payments', { amount: 1 }));
});

await check('Protobuf serde: the FileDescriptorProto of the serializer gets the ID of the same schema registered as text, the deserializer reads ?format=serialized', async () => {
  const fdp = create(FileDescriptorProtoSchema, {
    name: 'confluentjs/shipment.proto', package: 'acme.confluentjs', syntax: 'proto3',
    messageType: [{
      name: 'Shipment',
      field: [
        { name: 'id', number: 1, type: 3 /* INT64 */, label: 1, jsonName: 'id' },
        { name: 'carrier', number: 2, type: 9 /* STRING */, label: 1, jsonName: 'carrier' },
        { name: 'parcels', number: 3, type: 9, label: 3 /* REPEATED */, jsonName: 'parcels' },
      ],
    }],
  });
  const files = createFileRegistry(fdp, () => undefined);
  const shipment = files.getMessage('acme.confluentjs.Shipment');
  assert.ok(shipment, 'message descriptor');
  // The same schema registered first as .proto text: the serializer's
  // descriptor must get its ID, not a new one.
  const text = 'syntax = "proto3";\npackage acme.confluentjs;\n\nmessage Shipment {\n  int64 id = 1;\n  string carrier = 2;\n  repeated string parcels = 3;\n}\n';
  const textID = await fresh().register('confluentjs-shipments-value', { schemaType: 'PROTOBUF', schema: text });
  const ser = new ProtobufSerializer(fresh(), SerdeType.VALUE, { autoRegisterSchemas: true, registry: createMutableRegistry(shipment) });
  const msg = create(shipment, { id: 9n, carrier: 'DHL', parcels: ['a', 'b'] });
  const bytes = await ser.serialize('confluentjs-shipments', msg);
  const md = await fresh().getLatestSchemaMetadata('confluentjs-shipments-value');
  assert.equal(md.schemaType, 'PROTOBUF');
  assert.equal(bytes.readUInt32BE(1), md.id);
  assert.equal(md.id, textID, 'the descriptor is the version the text registered');
  assert.equal(md.version, 1);
  assert.match(md.schema, /message Shipment/, 'the registry answers the text form by default');
  const de = new ProtobufDeserializer(fresh(), SerdeType.VALUE, {});
  const back = await de.deserialize('confluentjs-shipments', bytes);
  assert.equal(back.carrier, 'DHL');
  assert.equal(back.id, 9n);
  assert.deepEqual(back.parcels, ['a', 'b']);
});

console.log('all checks passed');
