import { expect } from 'chai';
import fc from 'fast-check';
import { elementTexts, memberText, resultText } from '../src/index.js';

const U64_MAX = '18446744073709551615';

describe('result text: a member as the node wrote it', () => {
  it('keeps a u64 that JSON.parse would change', () => {
    const text = `{"jsonrpc":"2.0","result":{"context":{"slot":5},"value":{"lamports":${U64_MAX},"rentEpoch":${U64_MAX}}},"id":1}`;
    const result = resultText(text)!;
    expect(result).to.equal(`{"context":{"slot":5},"value":{"lamports":${U64_MAX},"rentEpoch":${U64_MAX}}}`);
    expect(JSON.stringify(JSON.parse(text).result)).to.not.equal(result);
  });

  it('finds any member of any object, in any order and spacing, with strings that look like JSON', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.jsonValue(),
        fc.constantFrom(0, 2, '\t'),
        (others, result, space) => {
          const object = { ...others, result };
          const text = JSON.stringify(object, null, space);
          const found = memberText(text, 'result');
          expect(JSON.parse(found!)).to.deep.equal(JSON.parse(JSON.stringify(result)));
        },
      ),
    );
  });

  it('splits an array into its elements as written', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.constantFrom(0, 2), (values, space) => {
        const texts = elementTexts(JSON.stringify(values, null, space))!;
        expect(texts.map((t) => JSON.parse(t) as unknown)).to.deep.equal(JSON.parse(JSON.stringify(values)));
      }),
    );
    expect(elementTexts(`[${U64_MAX}, {"a":"]"} ,null]`)).to.deep.equal([U64_MAX, '{"a":"]"}', 'null']);
  });

  it('is undefined where there is no such member, or no object or array', () => {
    expect(resultText('{"jsonrpc":"2.0","error":{"code":1,"message":"result"},"id":1}')).to.equal(undefined);
    expect(resultText('[1]')).to.equal(undefined);
    expect(elementTexts('{"a":1}')).to.equal(undefined);
  });
});
