import { defineMethod, type MethodDefinition } from '@rollup-router/core';
import {
  getDelegationStatusParamsSchema,
  getDelegationStatusResultSchema,
  type GetDelegationStatusParams,
  type GetDelegationStatusResult,
} from '../generated/schemas.js';
import type { Routing } from '../routing.js';

/** getDelegationStatus: whether an account is delegated, and to which ER, as the Rust router answers. */
export function getDelegationStatusMethod(
  routing: Routing,
): MethodDefinition<GetDelegationStatusParams, GetDelegationStatusResult, unknown, 'getDelegationStatus'> {
  return defineMethod<GetDelegationStatusParams, GetDelegationStatusResult, unknown, 'getDelegationStatus'>({
    name: 'getDelegationStatus',
    summary: "Returns an account's delegation: its ER's URL and its delegation record.",
    description:
      '{"isDelegated": false}, or isDelegated true with the fqdn of the ER and the record (authority, owner, delegationSlot, lamports). An ER the route table does not list is -32070, naming it.',
    params: getDelegationStatusParamsSchema,
    result: getDelegationStatusResultSchema,
    handler: async ([account]) => {
      const record = await routing.source.recordOf(account);
      if (record === null) return { isDelegated: false };
      const er = routing.erOfRecord(record);
      return {
        isDelegated: true,
        fqdn: er.url,
        delegationRecord: {
          authority: record.authority,
          owner: record.owner,
          // u64 as a JSON number, as serde writes it; past 2^53 it loses precision there too.
          delegationSlot: Number(record.delegationSlot),
          lamports: Number(record.lamports),
        },
      };
    },
  });
}
