import { busContractSuite } from '../test/bus-contract.suite';
import { KafkaHarness } from '../test/kafka-harness';

const harness = new KafkaHarness();
beforeAll(() => harness.setup(), 60000);
afterAll(() => harness.teardown(), 60000);

busContractSuite('Kafka transport + Postgres', () => harness);
