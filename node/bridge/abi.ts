// The bridge contract's interface as the relayer uses it: ethers' Interface of abi-text.ts.
import { Interface } from 'ethers';
import { BRIDGE_ABI } from './abi-text.ts';

export const bridgeInterface = new Interface(BRIDGE_ABI);
export const DEPOSIT_TOPIC = bridgeInterface.getEvent('Deposit')?.topicHash as string;
export const WITHDRAWAL_TOPIC = bridgeInterface.getEvent('Withdrawal')?.topicHash as string;
export const VALIDATOR_SET_TOPIC = bridgeInterface.getEvent('ValidatorSetUpdated')?.topicHash as string;
