// Integration suites need real services; fail loudly (never skip) when they are missing.
const net = require('node:net');

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

module.exports = async () => {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set: integration suites run on a real Postgres (bash deploy/local/postgres-ensure.sh)');
  const [host, port] = (process.env.KAFKA_BROKERS || '127.0.0.1:19092').split(',')[0].split(':');
  if (!(await reachable(host, Number(port)))) throw new Error(`Kafka is not reachable at ${host}:${port}: start it with npm run kafka:start`);
};
