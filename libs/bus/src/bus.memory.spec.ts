import { busContractSuite } from '../test/bus-contract.suite';
import { MemoryHarness } from '../test/memory-harness';

const harness = new MemoryHarness();
beforeAll(() => harness.setup(), 60000);
afterAll(() => harness.teardown());

busContractSuite('in-process transport + embedded Postgres', () => harness);
