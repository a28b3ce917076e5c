// The Worker bundle's stand-in for @smithy/core/event-streams (wrangler.toml [alias]): the AWS
// SDK loads it only for operations that stream events, and the DynamoDB operations the store uses
// (GetItem, PutItem, DeleteItem, Query, TransactWriteItems) never do. Using it says why.
function unavailable() {
  throw new Error('AWS event streams are not in the Worker bundle: no DynamoDB operation the store uses streams events');
}
export { unavailable as EventStreamSerde, unavailable as eventStreamSerdeProvider };
