import { getAddressEncoder, getProgramDerivedAddress, type Address } from '@solana/kit';
import { DELEGATION_RECORD_SEED } from './record-codec.js';

const addressEncoder = getAddressEncoder();

/** Where the delegation record of `account` lives: PDA(["delegation", account]) of the program. */
export async function delegationRecordAddress(account: Address, programId: Address): Promise<Address> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: programId,
    seeds: [DELEGATION_RECORD_SEED, addressEncoder.encode(account)],
  });
  return pda;
}
