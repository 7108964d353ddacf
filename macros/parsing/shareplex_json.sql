{#-
    DTS Shareplex JSON: the format Alibaba DTS writes for Oracle changes read by SharePlex
    (../shared/formats/alibaba-dts-kafka-avro-shareplex-canal.md). One message, one row:

      meta   time (commit time, UTC), userid, op, scn, rowid, trans, seq, size, idx,
             `table` (OWNER.TABLE: the Oracle owner is the source schema), posttime
      data   insert: the row; update: only the columns that changed; delete: the row
      key    update: the row's key values before the change

      op ins / INSERT, upd / UPDATE / UPDATE AFTER, del / DELETE   one change
      TRUNCATE                                                     a truncate of the table
      DROP COLUMN                                                  control record schema_change
      UPDATE BEFORE                                                control record update_before_image:
                                                                   the row before an update, whose
                                                                   change is the UPDATE AFTER

    An update's `data` is a partial image: a column it leaves out keeps its value, and a key
    column whose value differs from `key` is a key change (delete of the old key, the whole
    row moved to the new one). Values are strings or null, typed later by the declared types.

    Change sequence: [scn, the three parts of trans (Oracle's undo segment.slot.sequence, as
    numbers: 7.10.5 is after 7.9.5), seq]. A message whose scn, trans or seq is not that shape
    is quarantined (invalid_change_sequence): its place among the others is not knowable.
-#}

{% macro shareplex_json_records(landed_relation, flavour) %}
    {#-
        The staging query of DTS Shareplex JSON: landed raw records in (landed_relation),
        canonical change records out (cdc_record_columns), one row per message.
    -#}
    {%- set r = 'classified_records' -%}
    {%- set m = r ~ '.message' -%}
    {%- set qualified_table = m ~ '.meta.`table`' -%}
    {%- set fields = {
        'classification': r ~ '.classification',
        'source_database': 'cast(null as string)',
        'source_schema': 'if(contains(' ~ qualified_table ~ ", '.'), substring_index(" ~ qualified_table ~ ", '.', 1), null)",
        'source_table': 'if(contains(' ~ qualified_table ~ ", '.'), substr(" ~ qualified_table ~ ", instr(" ~ qualified_table ~ ", '.') + 1), " ~ qualified_table ~ ')',
        'operation': r ~ '.operation',
        'key_image': 'cast(null as map<string, variant>)',
        'before_image': 'case ' ~ r ~ ".operation when 'update' then " ~ m ~ '.`key` when ' ~ "'delete' then " ~ m ~ '.data end',
        'after_image': 'if(' ~ r ~ ".operation in ('insert', 'update'), " ~ m ~ '.data, null)',
        'field_schemas': 'cast(null as ' ~ cdc_field_schemas_type() ~ ')',
        'change_sequence': r ~ '.change_sequence',
        'commit_timestamp': 'try_cast(' ~ _shareplex_utc_text(m ~ '.meta.time') ~ ' as timestamp)',
        'transaction_id': m ~ '.meta.trans',
    } -%}
    with

    parsed_records as (
        select
            landed.*,
            {{ cdc_parsed_message('landed', _shareplex_message_fields()) }} as message
        from {{ landed_relation }} as landed
    ),

    operations as (
        select
            parsed_records.*,
            {{ shareplex_json_operation('parsed_records.message.meta.op') }} as operation,
            {{ shareplex_json_change_sequence('parsed_records.message.meta') }} as change_sequence
        from parsed_records
    ),

    classified_records as (
        select
            operations.*,
            {{ shareplex_json_classification('operations.message', 'operations.record_value', 'operations.operation', 'operations.change_sequence') }}
                as classification
        from operations
    )

    {{ cdc_record_columns(fields, flavour, r) }}
{% endmacro %}


{% macro shareplex_json_operation(op) -%}
    {#-
        What a Shareplex meta.op (short and long spellings, any case) does: insert, update,
        delete or truncate for a change; drop_column or update_before for the two control
        records (never staged as an operation); null for an op the format does not define.
    -#}
    case lower(trim({{ op }}))
        when 'drop column' then 'drop_column'
        when 'update before' then 'update_before'
        when 'ins' then 'insert'
        when 'insert' then 'insert'
        when 'upd' then 'update'
        when 'update' then 'update'
        when 'update after' then 'update'
        when 'del' then 'delete'
        when 'delete' then 'delete'
        when 'truncate' then 'truncate'
    end
{%- endmacro %}


{% macro shareplex_json_change_sequence(meta) -%}
    {#- [scn, trans as three numbers, seq], or null when one of them is not that shape. -#}
    if(
        {{ meta }}.scn rlike '^[0-9]{1,18}$'
        and {{ meta }}.trans rlike '^[0-9]{1,18}[.][0-9]{1,18}[.][0-9]{1,18}$'
        and {{ meta }}.seq rlike '^[0-9]{1,18}$',
        array(
            try_cast({{ meta }}.scn as bigint),
            try_cast(split_part({{ meta }}.trans, '.', 1) as bigint),
            try_cast(split_part({{ meta }}.trans, '.', 2) as bigint),
            try_cast(split_part({{ meta }}.trans, '.', 3) as bigint),
            try_cast({{ meta }}.seq as bigint)
        ),
        null
    )
{%- endmacro %}


{% macro shareplex_json_classification(message, record_value, operation, change_sequence) -%}
    {#-
        What a Shareplex JSON record is: a change, a control record (Kafka tombstone, DROP
        COLUMN, UPDATE BEFORE), or quarantined with a reason code. `operation` and
        `change_sequence` are the expressions of shareplex_json_operation and
        shareplex_json_change_sequence over the message.
    -#}
    case
        when {{ record_value }} is null or trim({{ record_value }}) = 'null'
            then {{ cdc_classification('control', 'tombstone') }}
        when {{ message }}._corrupt_record is not null
            then {{ cdc_classification('quarantined', 'invalid_json') }}
        when {{ message }}.meta.op is null
            then {{ cdc_classification('quarantined', 'unrecognized_message') }}
        when {{ operation }} = 'drop_column'
            then {{ cdc_classification('control', 'schema_change') }}
        when {{ operation }} = 'update_before'
            then {{ cdc_classification('control', 'update_before_image') }}
        when {{ operation }} is null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        when {{ message }}.meta.`table` is null
            then {{ cdc_classification('quarantined', 'missing_source_table') }}
        when {{ change_sequence }} is null
            then {{ cdc_classification('quarantined', 'invalid_change_sequence') }}
        when {{ operation }} != 'truncate' and {{ message }}.data is null
            then {{ cdc_classification('quarantined', 'missing_row_image') }}
        else {{ cdc_classification('change', none) }}
    end
{%- endmacro %}


{% macro _shareplex_message_fields() -%}
    meta: struct<time: string, userid: string, op: string, scn: string, rowid: string, trans: string, seq: string, size: string, `table`: string, idx: string, posttime: string>, data: map<string, variant>, `key`: map<string, variant>
{%- endmacro %}


{% macro _shareplex_utc_text(time_text) -%}
    {#- meta.time is UTC; a time without a zone designator gets one, whatever the session's time zone. -#}
    if({{ time_text }} rlike '(Z|[+-][0-9]{2}:?[0-9]{2})$', {{ time_text }}, concat({{ time_text }}, 'Z'))
{%- endmacro %}
