/*
 * The shapes of the DynamoDB requests the store sends and the answers it reads, as DynamoDB's
 * JSON protocol (API version 2012-08-10) names them; only the fields toolgate uses are listed.
 * Binary attributes are bytes here; the client sends and reads them as base64.
 */

export interface AttributeValue {
  S?: string;
  /** Numbers travel as strings: DynamoDB keeps 38 digits, more than a JS number holds. */
  N?: string;
  B?: Uint8Array;
  BOOL?: boolean;
  NULL?: boolean;
  M?: Record<string, AttributeValue>;
  L?: AttributeValue[];
  SS?: string[];
  NS?: string[];
}

export type Item = Record<string, AttributeValue>;

/** The condition half of a write. */
export interface Condition {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
}

export interface Put extends Condition {
  TableName: string;
  Item: Item;
}

export interface Delete extends Condition {
  TableName: string;
  Key: Item;
}

export interface Update extends Condition {
  TableName: string;
  Key: Item;
  UpdateExpression: string;
}

/** One write of a TransactWriteItems; exactly one field is set. */
export type TransactWriteItem = { Put: Put; Delete?: never; Update?: never } | { Delete: Delete; Put?: never; Update?: never } | { Update: Update; Put?: never; Delete?: never };

/** Why a transaction was cancelled, one per write in order: `None` where that write's condition held. */
export interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Item;
}

export interface QueryInput {
  TableName: string;
  KeyConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
  Limit?: number;
  ExclusiveStartKey?: Item;
  ConsistentRead?: boolean;
  ScanIndexForward?: boolean;
}

export interface QueryOutput {
  Items?: Item[];
  LastEvaluatedKey?: Item;
}

export interface KeySchemaElement {
  AttributeName: string;
  KeyType: 'HASH' | 'RANGE';
}

export interface AttributeDefinition {
  AttributeName: string;
  AttributeType: 'S' | 'N' | 'B';
}

export interface TableDescription {
  TableName?: string;
  TableStatus?: string;
  KeySchema?: KeySchemaElement[];
  AttributeDefinitions?: AttributeDefinition[];
  BillingModeSummary?: { BillingMode?: string };
}

export interface TimeToLiveDescription {
  AttributeName?: string;
  TimeToLiveStatus?: string;
}

/** Each operation the client sends: its input and its answer. */
export interface DynamoDbOperations {
  GetItem: { input: { TableName: string; Key: Item; ConsistentRead?: boolean }; output: { Item?: Item } };
  PutItem: { input: Put; output: Record<string, never> };
  DeleteItem: { input: Delete; output: Record<string, never> };
  UpdateItem: { input: Update; output: { Attributes?: Item } };
  Query: { input: QueryInput; output: QueryOutput };
  TransactWriteItems: { input: { TransactItems: TransactWriteItem[] }; output: Record<string, never> };
  CreateTable: {
    input: { TableName: string; BillingMode: 'PAY_PER_REQUEST' | 'PROVISIONED'; AttributeDefinitions: AttributeDefinition[]; KeySchema: KeySchemaElement[] };
    output: { TableDescription?: TableDescription };
  };
  DescribeTable: { input: { TableName: string }; output: { Table?: TableDescription } };
  DescribeTimeToLive: { input: { TableName: string }; output: { TimeToLiveDescription?: TimeToLiveDescription } };
  UpdateTimeToLive: { input: { TableName: string; TimeToLiveSpecification: { AttributeName: string; Enabled: boolean } }; output: Record<string, never> };
}

export type DynamoDbOperation = keyof DynamoDbOperations;
export type DynamoDbInput<O extends DynamoDbOperation> = DynamoDbOperations[O]['input'];
export type DynamoDbOutput<O extends DynamoDbOperation> = DynamoDbOperations[O]['output'];
