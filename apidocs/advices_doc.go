package apidocs

// The descriptions of the recommendation operations: the catalog's inputs, derived values and
// advices, with the source of every figure.

const adviceSubmitDescription = `Submit housing inputs; each element gets its savings advice. The body is a JSON array of 1 to 100 elements ` + "`{\"input\": {KEY: value, ...}}`" + `.

The job is stored before the answer (it survives a restart) and computed asynchronously: 200 with ` + "`{\"jobId\", \"status\": \"CREATED\", \"result\": []}`" + `; poll ` + "`GET /v1/jobs/advices/{jobId}`" + `.

## Inputs (all optional; at least one known key per element)

| key | value | meaning |
|---|---|---|
| HOUSING_LAST_YEAR_GAS_HEATING_CONSUMPTION | number ≥ 0 | kWh of gas used for space heating last year |
| HOUSING_LAST_YEAR_ELEC_HEATING_CONSUMPTION | number ≥ 0 | kWh of electricity used for space heating last year |
| HOUSING_LAST_YEAR_ELEC_CONSUMPTION | number ≥ 0 | kWh of electricity last year, all uses |
| HOUSING_TYPE | HOUSE, APARTMENT | |
| HOUSING_SURFACE | number, 0 < x ≤ 10000 | heated floor area, m² |
| HOUSING_OCCUPANTS | integer 1..20 | |
| HOUSING_HEATING_SETPOINT | number 10..30 | usual comfort temperature, °C |
| HOUSING_HEATING_SYSTEM | GAS_BOILER, GAS_CONDENSING_BOILER, ELEC_CONVECTOR, HEAT_PUMP | |
| HOUSING_HAS_PROGRAMMABLE_THERMOSTAT | boolean | |
| HOUSING_ROOF_INSULATED | boolean | |
| HOUSING_WINDOWS | SINGLE, DOUBLE, TRIPLE | glazing |
| HOUSING_WATER_HEATER | GAS, ELEC_TANK, HEAT_PUMP | |
| GAS_PRICE_EUR_PER_KWH | number > 0 | default 0.1100 (French benchmark gas price for households, CRE "prix repère", 2024, rounded) |
| ELEC_PRICE_EUR_PER_KWH | number > 0 | default 0.2516 (French regulated electricity tariff, "tarif bleu" base option, February 2024) |
| SITE_ID | string | a site of your tenant whose readings fill the missing heating consumption (see below) |

Integers may be written 3 or 3.0, not 3.5. Unknown keys are not errors: they are listed, sorted, in ` + "`result[i].context.unknownInputs`" + `.

**SITE_ID.** The heating consumption of the site's heating fluid (its ` + "`heatingFluid`" + `, GAS or ELEC) is taken from the degree-day model fitted on the site's own readings (the 365 days ending at its last reading, however long ago), as the budget endpoints of the main API fit it: the weather-dependent part of a year (slope × degree days of a normal year, base load excluded). A consumption given in the element wins. An unknown site, a site without heating fluid, or one whose model cannot be fitted (not enough readings, no weather station or tariff) is refused with 400 naming ` + "`[i].input.SITE_ID`" + ` and the reason.

## Derived values (result[i].context)

- Every input used, key → value, the default prices included; ` + "`unknownInputs`" + ` (sorted array).
- ` + "`heatingFluid`" + `: GAS or ELEC, from HOUSING_HEATING_SYSTEM (gas and condensing boilers: GAS; convectors and heat pumps: ELEC), else from the heating consumption given (GAS when both are). ` + "`heatingKwh`" + `: that fluid's heating consumption; ` + "`heatingPriceEurPerKwh`" + `: that fluid's price.
- With HOUSING_SURFACE: ` + "`heatingKwhPerM2`" + ` (heatingKwh ÷ surface) and ` + "`energyClass`" + `, the letter of ` + "`primaryEnergyKwhPerM2`" + ` = (gas heating kWh × 1 + electricity kWh × 2.3) ÷ surface, the electricity being HOUSING_LAST_YEAR_ELEC_CONSUMPTION (all uses) when given, else the electric heating consumption. The factor 2.3 and the classes are those of the French energy performance diagnosis (DPE, decree of 31 March 2021): A ≤ 70 < B ≤ 110 < C ≤ 180 < D ≤ 250 < E ≤ 330 < F ≤ 420 < G, kWh per m² and year (a bound belongs to the better class).
- ` + "`totalSavingsKwh`" + `, ` + "`totalSavingsEur`" + `: the heating advices given combined, heatingKwh × (1 − Π(1 − rateᵢ)) at the heating price (each rate applies to what the others leave), plus HEAT_PUMP_WATER_HEATER.

## Advices (result[i].advices: CODE → {savingsKwh, savingsEur, rate, basis})

savingsKwh = basis × rate, savingsEur = savingsKwh × the price of the fluid saved, both rounded to 0.01; rate is shown to 6 decimals, savings use the exact rate. Each rate applies to the original consumption, independently.

| code | applies when | basis | rate | source |
|---|---|---|---|---|
| LOWER_HEATING_SETPOINT | setpoint > 19 °C | heatingKwh | 0.07 × (setpoint − 19) | ADEME: each degree above 19 °C adds about 7 % to heating |
| PROGRAMMABLE_THERMOSTAT | no programmable thermostat | heatingKwh | 0.10 | ADEME: programming saves about 10 % of heating |
| ROOF_INSULATION | HOUSE with an uninsulated roof | heatingKwh | 0.25 | ADEME: up to 30 % of a house's heat leaves through an uninsulated roof; insulating it saves about 25 % |
| WINDOW_GLAZING | SINGLE glazing | heatingKwh | 0.10 | ADEME: windows lose 10–15 % of the heat; double glazing saves about 10 % |
| CONDENSING_BOILER | system GAS_BOILER | heatingKwh (gas) | 0.15 | ADEME: a condensing boiler uses about 15 % less gas |
| HEAT_PUMP | system ELEC_CONVECTOR | heatingKwh (electricity) | 1 − 1/3 | ADEME: a heat pump of seasonal COP 3 gives 3 kWh of heat per kWh of electricity |
| HEAT_PUMP_WATER_HEATER | water heater ELEC_TANK | 800 kWh × occupants (electricity) | 1 − 1/2.5 | ADEME: about 800 kWh of hot-water energy per person and year; a heat-pump water heater has a COP of about 2.5 |

HEAT_PUMP_WATER_HEATER saves electricity at ELEC_PRICE_EUR_PER_KWH and is not part of the combined heating saving (it is added to the totals).

## Ignored advices (result[i].ignored: CODE → reason)

- ` + "`NOT_APPLICABLE`" + `: the inputs given rule it out: a programmable thermostat present, a roof insulated, an apartment, glazing other than single, a heating system or water heater other than the one the advice replaces.
- ` + "`MISSING_INPUT:<KEY>`" + `: otherwise, the first missing key, in the inputs table's order, among those the advice needs: its consumption basis (the heating consumption of the heating fluid, gas when the fluid is unknown; HOUSING_OCCUPANTS for the water heater) and the keys its condition reads. CONDENSING_BOILER and HEAT_PUMP without HOUSING_HEATING_SYSTEM are ` + "`MISSING_INPUT:HOUSING_HEATING_SYSTEM`" + ` (the system decides whether they apply and what they save).
- ` + "`NO_SAVING`" + `: otherwise, when the rate or the basis is 0 or less (a setpoint at or below 19 °C, a heating consumption of 0).

Example: gas heating 12,000 kWh, setpoint 21, no programmable thermostat → LOWER_HEATING_SETPOINT rate 0.14, 1,680 kWh, 184.80 EUR; PROGRAMMABLE_THERMOSTAT 0.10, 1,200 kWh, 132.00 EUR; totals 12000 × (1 − 0.86 × 0.90) = 2,712 kWh, 298.32 EUR; ROOF_INSULATION ignored MISSING_INPUT:HOUSING_TYPE.

**Errors.** A body that is not a JSON array of 1 to 100 elements, an element that is not ` + "`{\"input\": {...}}`" + `, an input with no known key, a value of the wrong type or out of range, a member given twice, a NUL character: 400 INVALID_PARAMETER naming the element and key (` + "`[0].input.HOUSING_SURFACE: must be a number > 0 and <= 10000 (m²) (got -2)`" + `); nothing is stored.`

const adviceJobDescription = `A recommendation job of the caller's tenant: ` + "`{jobId, status, createdTs, updatedTs, result}`" + `, ` + "`result[i]`" + ` answering element i of the submission once DONE (see the submission for its content).

Statuses: CREATED (stored, waiting for a worker) → IN_PROGRESS → DONE | ERROR. A job interrupted by a restart is computed again at the next start. ERROR (a failure of the service, never of the inputs, which were checked at submission) carries ` + "`error.message`" + `.

**Errors.** An unknown job, a job of another tenant, or an id that is not a UUID: 404 JOB_NOT_FOUND.`
