import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last inventory each provider published: the targets the router may resolve tickets to. */
@Entity({ schema: 'router', name: 'provider_inventories' })
export class ProviderInventoryEntity {
  @PrimaryColumn({ type: 'text' })
  provider!: string;

  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'jsonb' })
  targets!: { target: string; aliases: string[] }[];

  @Column({ type: 'boolean' })
  truncated!: boolean;

  @Column({ name: 'failure_code', type: 'text', nullable: true })
  failureCode!: string | null;

  @Column({ name: 'listed_at', type: 'timestamptz' })
  listedAt!: Date;
}
