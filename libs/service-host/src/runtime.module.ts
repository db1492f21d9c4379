import { Global, Module, type DynamicModule } from '@nestjs/common';
import { BUS, DATA_SOURCE, LOGGER, ROLE_RUNTIME, type RoleRuntime } from './role-runtime';

/** Makes the role's bus, data source and logger injectable in its NestJS module. */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(runtime: RoleRuntime): DynamicModule {
    return {
      module: RuntimeModule,
      providers: [
        { provide: ROLE_RUNTIME, useValue: runtime },
        { provide: BUS, useValue: runtime.bus },
        { provide: DATA_SOURCE, useValue: runtime.dataSource },
        { provide: LOGGER, useValue: runtime.logger },
      ],
      exports: [ROLE_RUNTIME, BUS, DATA_SOURCE, LOGGER],
    };
  }
}
