// The shared client scenario over node-postgres (ClientScenarioTest): prints one line a step; psycopg prints the same.
const { Client, Query, types } = require('pg');
const { from: copyFrom, to: copyTo } = require('pg-copy-streams');

// values as PostgreSQL's text, like the other clients print them
for (const oid of [20, 1082, 1114, 1700]) types.setTypeParser(oid, (v) => v);

const [host, port, user, password] = process.argv.slice(2);

function text(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return String(v);
}

async function state(client, sql, params) {
  try {
    await client.query(sql, params);
    return 'none';
  } catch (e) {
    return e.code;
  }
}

// Client.cancel reads the deprecated Client.activeQuery, whose warning would go to stderr, into the output
process.noDeprecation = true;

// a statement that runs for long on the engine: a 12-way cross join of items
const tables = [...Array(12).keys()];
const LONG = `SELECT count(*) AS n FROM ${tables.map((i) => `items t${i}`).join(', ')} WHERE ${tables.map((i) => `t${i}.id`).join(' + ')} = -1`;

// Runs sql on client c and cancels it after a second with node-postgres's own cancel: a second Client, never
// connected, opens a connection and sends a CancelRequest with c's process ID and secret key. Resolves to the
// SQLSTATE and whether the statement ended within 10 s.
function cancelled(c, sql) {
  return new Promise((resolve) => {
    const start = Date.now();
    const q = c.query(new Query(sql));
    const timer = setTimeout(() => new Client({ host, port: Number(port) }).cancel(c, q), 1000);
    const done = (code) => {
      clearTimeout(timer);
      resolve([code, Date.now() - start < 10000 ? 'True' : 'False']);
    };
    q.on('error', (e) => done(e.code));
    q.on('end', () => done('none'));
  });
}

async function main() {
  const c = new Client({ host, port: Number(port), user, password, database: 'shop', ssl: false });
  await c.connect();
  let r = await c.query('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), price NUMERIC(8,2), added DATE, ok BOOLEAN, big BIGINT, ts TIMESTAMP)');
  console.log('create', r.command === 'CREATE' ? 'CREATE TABLE' : r.command);
  const rows = [
    [1, 'apple', '1.50', '2024-01-02', true, '9000000000', '2024-01-02 03:04:05'],
    [2, 'pear', null, '2024-03-04', false, null, null],
    [3, null, '-0.25', null, null, '-1', '2023-12-31 23:59:59'],
  ];
  for (const row of rows) {
    r = await c.query('INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7)', row);
    console.log('insert', r.rowCount);
  }
  r = await c.query('SELECT id, name, price, added, ok, big, ts FROM items ORDER BY id');
  for (const row of r.rows) console.log('row', [row.id, row.name, row.price, row.added, row.ok, row.big, row.ts].map(text).join('|'));
  r = await c.query('UPDATE items SET price = price + 1 WHERE price IS NOT NULL');
  console.log('update', r.rowCount);

  await c.query('BEGIN');
  r = await c.query('DELETE FROM items WHERE id = 1');
  console.log('delete in transaction', r.rowCount);
  await c.query('ROLLBACK');
  r = await c.query('SELECT count(*) AS n FROM items');
  console.log('after rollback', r.rows[0].n);

  await c.query('BEGIN');
  await c.query("INSERT INTO items (id, name) VALUES (10, 'ten')");
  console.log('duplicate', await state(c, "INSERT INTO items (id, name) VALUES (1, 'dup')"));
  console.log('after error', await state(c, 'SELECT 1'));
  await c.query('ROLLBACK');
  r = await c.query('SELECT count(*) AS n FROM items WHERE id = 10');
  console.log('ten rolled back', r.rows[0].n);

  for (const i of [1, 2, 3, 1, 2, 3, 1]) {
    r = await c.query({ name: 'by-id', text: 'SELECT name FROM items WHERE id = $1', values: [i] });
    console.log('name', i, text(r.rows[0].name));
  }

  await new Promise((resolve, reject) => {
    const s = c.query(copyFrom('COPY items (id, name) FROM STDIN'));
    s.on('finish', resolve);
    s.on('error', reject);
    s.end('20\ttwenty\n21\t\\N\n');
  });
  r = await c.query('SELECT count(*) AS n FROM items WHERE id >= 20');
  console.log('copy in', r.rows[0].n);
  const out = await new Promise((resolve, reject) => {
    const chunks = [];
    const s = c.query(copyTo('COPY (SELECT id, name FROM items WHERE id >= 20 ORDER BY id) TO STDOUT'));
    s.on('data', (d) => chunks.push(d));
    s.on('end', () => resolve(Buffer.concat(chunks).toString()));
    s.on('error', reject);
  });
  console.log('copy out', out.replace(/\n/g, '/').replace(/\t/g, ','));

  console.log('unknown table', await state(c, 'SELECT * FROM nowhere'));

  await c.query('BEGIN');
  await c.query('SET TRANSACTION READ ONLY');
  r = await c.query('SELECT count(*) AS n FROM items');
  console.log('read only count', r.rows[0].n);
  console.log('write in read only', await state(c, 'INSERT INTO items (id) VALUES (99)'));
  await c.query('ROLLBACK');
  r = await c.query('SHOW macrodb.last_commit');
  console.log('last commit reported', Number(r.rows[0]['macrodb.last_commit']) > 0 ? 'True' : 'False');

  let [code, inTime] = await cancelled(c, LONG);
  console.log('cancel', code, 'in time', inTime);
  r = await c.query('SELECT count(*) AS n FROM items');
  console.log('after cancel', r.rows[0].n);
  await c.query('BEGIN');
  await c.query("INSERT INTO items (id, name) VALUES (30, 'thirty')");
  [code, inTime] = await cancelled(c, LONG);
  console.log('cancel in transaction', code, 'in time', inTime);
  console.log('after cancel in transaction', await state(c, 'SELECT 1'));
  await c.query('ROLLBACK');
  r = await c.query('SELECT count(*) AS n FROM items WHERE id = 30');
  console.log('thirty rolled back', r.rows[0].n);
  await c.end();
  console.log('done');
}

main().catch((e) => {
  console.log('failed', e.code || '', e.message);
  process.exit(1);
});
