{#-
    The staging contract: every staging model ends with `{{ cdc_record_columns(...) }}`, so all
    flavours emit the same columns in the same order (the intermediate layer unions
    them by position). One row per change event, or one row per control or quarantined record.
-#}




{% macro cdc_record_columns(fields, flavour, relation_alias, row_index='0') %}
    {#-
        The query every staging model ends with: its records in the staging contract's columns.
        fields: dict of SQL expressions over `relation_alias`, one per canonical field (see
        cdc_record_field_names()); `relation_alias` names the relation (a CTE) they are read
        from, whose `classification` column must already exist.
        Change fields are only evaluated for change records; control and quarantined records
        keep their raw text instead. Images are the message's own values (map<string, variant>,
        exact); the per-table typing decodes them with `field_schemas` (null without a schema).
        The table is partitioned by `source_table_partition` (the lower-cased source table), so
        that each current-state table reads only the changes of its own source table. The
        columns, their order and their types are cdc_record_column_types', which also creates
        the staging tables: each column here is its expression cast to that type, and a column
        listed there without an expression here stops the compilation.
    -#}
    {%- set missing = [] -%}
    {%- for name in cdc_record_field_names() if name not in fields -%}
        {%- do missing.append(name) -%}
    {%- endfor -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            "cdc_record_columns for flavour '" ~ flavour ~ "': missing field expressions " ~ missing | join(', ')
            ~ "; expected one for each of " ~ cdc_record_field_names() | join(', ')
        ) }}
    {%- endif -%}
    {#-
        Checks every flavour shares, before its own classification: a record that must not be
        parsed (unreadable_reason of the landed record), and a change whose image names a
        column twice (duplicate_field_name: which value is meant is not knowable).
    -#}
    {%- set repeats_a_name = [] -%}
    {%- for image in ['key_image', 'before_image', 'after_image'] -%}
        {%- do repeats_a_name.append(cdc_image_repeats_a_name(fields[image])) -%}
    {%- endfor -%}
    {%- set r = relation_alias -%}
    {%- set is_change = r ~ ".record_classification.outcome = 'change'" -%}
    {%- set types = dict(cdc_record_column_types()) -%}
    {#- the images as the contract types them (the same expressions as their columns: Spark evaluates each once) -#}
    {%- set typed_images = {} -%}
    {%- for image in ['key_image', 'before_image', 'after_image'] -%}
        {%- do typed_images.update({image: _cdc_cast('if(' ~ is_change ~ ', ' ~ fields[image] ~ ', null)', types[image])}) -%}
    {%- endfor -%}
    {%- set expressions = {
        'raw_record_id': "concat_ws(':', " ~ r ~ ".landing_file, cast(" ~ r ~ ".landing_position as string))",
        'row_index': row_index,
        'record_outcome': r ~ '.record_classification.outcome',
        'outcome_reason': r ~ '.record_classification.reason',
        'flavour': cdc_sql_string(flavour),
        'source_database': fields.source_database,
        'source_schema': fields.source_schema,
        'source_table': fields.source_table,
        'operation': 'if(' ~ is_change ~ ', ' ~ fields.operation ~ ', null)',
        'key_image': typed_images.key_image,
        'before_image': typed_images.before_image,
        'after_image': typed_images.after_image,
        'field_schemas': 'if(' ~ is_change ~ ', ' ~ fields.field_schemas ~ ', null)',
        'object_valued_columns': cdc_object_valued_columns([typed_images.key_image, typed_images.before_image, typed_images.after_image]),
        'change_sequence': 'if(' ~ is_change ~ ', ' ~ fields.change_sequence ~ ', null)',
        'commit_timestamp': fields.commit_timestamp,
        'transaction_id': fields.transaction_id,
        'landing_table': r ~ '.landing_table',
        'landing_file': r ~ '.landing_file',
        'landing_position': r ~ '.landing_position',
        'kafka_topic': r ~ '.kafka_topic',
        'kafka_partition': r ~ '.kafka_partition',
        'kafka_offset': r ~ '.kafka_offset',
        'kafka_timestamp': r ~ '.kafka_timestamp',
        'landed_at': r ~ '.landed_at',
        'loaded_at': cdc_loaded_at(),
        'raw_key': 'if(' ~ is_change ~ ', null, ' ~ r ~ '.record_key)',
        'raw_value': 'if(' ~ is_change ~ ', null, ' ~ r ~ '.record_value)',
        'source_table_partition': 'lower(cast(' ~ fields.source_table ~ ' as string))',
    } -%}
    {%- set unwritten = [] -%}
    {%- for name, data_type in cdc_record_column_types() if name not in expressions -%}
        {%- do unwritten.append(name) -%}
    {%- endfor -%}
    {%- if unwritten -%}
        {{ exceptions.raise_compiler_error(
            "cdc_record_columns: no expression for the staging columns " ~ unwritten | join(', ')
            ~ " of cdc_record_column_types; expected one for each of its columns"
        ) }}
    {%- endif -%}
    {#- each column cast to its contract type, in the contract's order (the partition column last) #}
    select
        {%- for name, data_type in cdc_record_column_types() %}
        {{ expressions[name] if name in typed_images else _cdc_cast(expressions[name], data_type) }} as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    {#- the record's outcome, decided once: its columns above read it (same name, so the field expressions still apply) #}
    from (
        select
            {{ r }}.*,
            case
                when {{ r }}.unreadable_reason is not null
                    then named_struct('outcome', 'quarantined', 'reason', {{ r }}.unreadable_reason)
                when {{ r }}.classification.outcome = 'change' and ({{ repeats_a_name | join(' or ') }})
                    then {{ cdc_classification('quarantined', 'duplicate_field_name') }}
                else {{ r }}.classification
            end as record_classification
        from {{ r }}
    ) as {{ r }}
{%- endmacro %}


{% macro cdc_image_repeats_a_name(image_expr) -%}
    {#- Whether a row image (map<string, variant>, as parsed: a repeated JSON name stays repeated) holds a name twice. -#}
    coalesce(size(map_keys({{ image_expr }})) > size(array_distinct(map_keys({{ image_expr }}))), false)
{%- endmacro %}


{% macro cdc_object_valued_columns(image_exprs) -%}
    {#-
        The names of the columns whose value is a JSON object (a variant OBJECT: a {scale, value}
        decimal, a geometry, a nested document) in any of the row images `image_exprs`
        (map<string, variant> expressions), without repeats; null when there is none, as for
        almost every change. The typing writes the decoding of a schemaless {scale, value}
        decimal only for a column whose new changes have such a value (cdc_schema_names_seen):
        that decoding in every number and string column made a table's generated code several
        times larger. Array functions only, which Spark compiles into the stage's code
        (map_filter would not be, and would take the whole staging query out of it).
    -#}
    case
        when
            {%- for image_expr in image_exprs %}
            {{ 'or ' if not loop.first }}coalesce(exists(map_values({{ image_expr }}), image_value -> {{ _cdc_is_json_object('image_value') }}), false)
            {%- endfor %}
            then array_distinct(concat(
                {%- for image_expr in image_exprs %}
                coalesce(
                    transform(filter(map_entries({{ image_expr }}), image_entry -> {{ _cdc_is_json_object('image_entry.value') }}), image_entry -> image_entry.key),
                    cast(array() as array<string>)
                ){{ ',' if not loop.last }}
                {%- endfor %}
            ))
    end
{%- endmacro %}


{% macro _cdc_is_json_object(variant_expr) -%}
    schema_of_variant({{ variant_expr }}) like 'OBJECT%'
{%- endmacro %}


{% macro _cdc_cast(expression, data_type) -%}
    cast({{ expression }} as {{ data_type }})
{%- endmacro %}


{% macro cdc_field_schemas_type() -%}
    {#- The field schemas of a change's images: column name to its Kafka Connect field schema. -#}
    map<string, struct<field: string, type: string, name: string, parameters: map<string, string>>>
{%- endmacro %}


{% macro cdc_plain_field_schemas(image_exprs) -%}
    {#-
        The field schemas of a flavour whose values are plain (text is text, a number a
        number, never base64 bytes nor a Kafka Connect logical type): every column the images
        (a list of map<string, variant> expressions) name gets an empty schema, so that the
        typing reads a string in a decimal column as decimal text, and quarantines one that is
        not a number (uncastable_value), instead of trying it as base64 bytes as it does for a
        schemaless Debezium value. Native functions only (no lambda); null when the names repeat
        (the record is then quarantined as duplicate_field_name).
    -#}
    {%- set names_parts = [] -%}
    {%- for image_expr in image_exprs -%}
        {%- do names_parts.append('map_keys(coalesce(' ~ image_expr ~ ', cast(map() as map<string, variant>)))') -%}
    {%- endfor -%}
    {%- set names = names_parts[0] if names_parts | length == 1 else 'array_union(' ~ names_parts | join(', ') ~ ')' -%}
    if(
        size({{ names }}) = size(array_distinct({{ names }})),
        map_from_arrays(
            {{ names }},
            array_repeat(
                cast(named_struct('field', null, 'type', null, 'name', null, 'parameters', null) as struct<field: string, type: string, name: string, parameters: map<string, string>>),
                size({{ names }})
            )
        ),
        null
    )
{%- endmacro %}


{% macro cdc_classification(outcome, reason) -%}
    named_struct('outcome', '{{ outcome }}', 'reason', {{ "'" ~ reason ~ "'" if reason else 'cast(null as string)' }})
{%- endmacro %}


{% macro cdc_loaded_at() -%}
    {#- One timestamp per dbt invocation: the watermark every downstream incremental model reads. -#}
    timestamp'{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}'
{%- endmacro %}


{% macro cdc_staged_records(record_outcome, where='true') %}
    {#-
        The records of every staging model (var cdc_staging_models) with one record_outcome
        (change, control or quarantined), as one union: what each flavour contributes to the
        intermediate layer. `where` may name the staging model's row as staged_records.
    -#}
    {%- for model_name in var('cdc_staging_models') %}
    select *
    from {{ ref(model_name) }} as staged_records
    where record_outcome = '{{ record_outcome }}' and {{ where }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}
